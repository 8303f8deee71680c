#!/bin/sh
# collect.sh [REPOSITORY]: the commits since the last tag, newest first.
set -eu
repo="${1:-.}"
if tag=$(git -C "$repo" describe --tags --abbrev=0 2>/dev/null); then
	echo "since: $tag"
	git -C "$repo" log --no-merges --pretty=format:'%h %s' "$tag..HEAD"
else
	echo "since: the first commit"
	git -C "$repo" log --no-merges --pretty=format:'%h %s'
fi
echo
