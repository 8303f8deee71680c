package skillinstall

// ParseArg is parseArg for the external tests: the URL go-git is given, the
// source as the lockfile records it, a local repository's path, the ref and
// the subfolder a source names.
func ParseArg(s, github string) (url, spec, local, ref, sub string, err error) {
	src, ref, sub, err := parseArg(s, github)
	return src.url, src.spec, src.local, ref, sub, err
}
