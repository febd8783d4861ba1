package models

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// NewID returns a new UUIDv7 (RFC 9562) in its canonical text form: 48 bits of Unix
// milliseconds followed by 74 random bits, so ids sort by creation time to the millisecond.
func NewID() string {
	return newIDAt(time.Now())
}

func newIDAt(t time.Time) string {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		panic("models: no randomness for ids: " + err.Error())
	}
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(b[0:6], ms[2:8])
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}
