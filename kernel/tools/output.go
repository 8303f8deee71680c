package tools

import (
	"fmt"
	"unicode/utf8"
)

// capBuffer keeps the head and the tail of what is written to it, max bytes
// in all, and counts what falls between: a command that prints gigabytes
// costs max bytes of memory. Bash gives it to the child as stdout and stderr
// at once, so os/exec copies into it from one goroutine, and it is read only
// after Wait: it needs no lock.
type capBuffer struct {
	max   int
	head  []byte
	tail  []byte // a ring of up to max-max/2 bytes once head is full
	next  int    // where the ring writes next, once it is full
	total int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += n
	if room := b.max/2 - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	size := b.max - b.max/2
	if size == 0 {
		return n, nil
	}
	if len(p) >= size {
		// Only the last size bytes can survive.
		b.tail = append(b.tail[:0], p[len(p)-size:]...)
		b.next = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(b.tail) < size {
			k := min(size-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(b.tail[b.next:], p)
		b.next = (b.next + k) % size
		p = p[k:]
	}
	return n, nil
}

// String returns everything written if it fits, else the head, a marker
// saying how many bytes were cut, and the tail. The cut never splits a
// UTF-8 sequence.
func (b *capBuffer) String() string {
	tail := append(append([]byte(nil), b.tail[b.next:]...), b.tail[:b.next]...)
	if b.total <= b.max {
		return string(b.head) + string(tail)
	}
	head := b.head
	// Drop a sequence the cut left incomplete at the end of the head...
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				head = head[:i]
			}
			break
		}
	}
	// ...and the continuation bytes it left at the start of the tail.
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) && len(tail) > len(b.tail)-utf8.UTFMax {
		tail = tail[1:]
	}
	cut := b.total - len(head) - len(tail)
	return fmt.Sprintf("%s\n[... %d bytes cut ...]\n%s", head, cut, tail)
}
