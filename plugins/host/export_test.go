package host

// BuiltExample is the example plugin's folder that TestMain built, for the
// tests of package host_test.
func BuiltExample() string { return exampleDir }
