package canary

// Answer returns 42. The catalogue's canary makes it return 41.
func Answer() int {
	return 42
}
