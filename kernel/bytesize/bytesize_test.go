package bytesize

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestText(t *testing.T) {
	assert.Equal(t, "32 MiB", Text(32<<20))
	assert.Equal(t, "16 MiB", Text(16<<20))
	assert.Equal(t, "64 KiB", Text(64<<10))
	assert.Equal(t, "1000 bytes", Text(1000))
	assert.Equal(t, "1025 KiB", Text(1<<20+1<<10), "a whole number of KiB but not of MiB")
	assert.Equal(t, "1025 bytes", Text(1025))
}
