// Package models is the domain vocabulary of partnerd: entities, state machines, money, errors,
// the Principal and event types. It imports only the standard library; storage tags are plain
// strings so that the store can map the same types.
package models
