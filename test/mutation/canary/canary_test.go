package canary

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAnswer(t *testing.T) {
	assert.Equal(t, 42, Answer(), "Answer()")
}
