package canary

import "testing"

func TestAnswer(t *testing.T) {
	if got := Answer(); got != 42 {
		t.Errorf("Answer() = %d, want 42", got)
	}
}
