package models

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// idClock keeps the ids of one process strictly increasing: within a millisecond the 12-bit
// rand_a field counts up (RFC 9562 section 6.2, method 1), and a full counter borrows the
// next millisecond.
var idClock struct {
	sync.Mutex
	ms  int64
	seq uint16
}

// NewID returns a new UUIDv7 (RFC 9562) in its canonical text form: 48 bits of Unix
// milliseconds, a 12-bit counter and 62 random bits. Ids of one process sort in the order
// they were made; ids of different processes sort by creation time to the millisecond.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		panic("models: no randomness for ids: " + err.Error())
	}
	ms, seq := nextIDTick(time.Now().UnixMilli(), binary.BigEndian.Uint16(b[6:8])&0x07ff)
	return formatID(b, ms, seq)
}

// nextIDTick returns the millisecond and counter of the next id; start seeds the counter
// when the millisecond advances and leaves half of its range for the ids that follow.
func nextIDTick(now int64, start uint16) (int64, uint16) {
	idClock.Lock()
	defer idClock.Unlock()
	switch {
	case now > idClock.ms:
		idClock.ms, idClock.seq = now, start
	case idClock.seq < 0x0fff:
		idClock.seq++
	default:
		idClock.ms, idClock.seq = idClock.ms+1, start
	}
	return idClock.ms, idClock.seq
}

func formatID(b [16]byte, ms int64, seq uint16) string {
	for i := range 6 { // 48 bits of milliseconds, big-endian
		b[i] = byte(ms >> (8 * (5 - i)) & 0xff)
	}
	b[6] = 0x70 | byte(seq>>8&0x0f)
	b[7] = byte(seq & 0xff)
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
