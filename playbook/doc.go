// Package playbook is the pure core of playbooks: the expression language, graph validation,
// the interpreter that decides which node runs next, template rendering of action parameters
// and a side-effect-free simulator. It performs no I/O and reads no clock, so workflows can use
// it deterministically and the API can use it to validate and simulate.
package playbook
