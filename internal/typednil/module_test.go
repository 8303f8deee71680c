package typednil_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/internal/typednil"
)

// No typed nil crosses an interface anywhere in the module: a function
// returning an interface never passes on a constructor's (nil pointer,
// error) pair, which once made every PostgreSQL connection error a
// nil-pointer panic (C19). A vet-style check over the module's own
// packages, type-checked from source.
func TestNoTypedNilCrossesAnInterface(t *testing.T) {
	findings, err := typednil.Check("../..", "./...")
	require.NoError(t, err)
	for _, f := range findings {
		assert.Fail(t, "typed nil", "%s", f)
	}
}
