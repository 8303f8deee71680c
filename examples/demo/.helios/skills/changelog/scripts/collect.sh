#!/bin/sh
# Lists commits since the last tag, or the last 20 when there is no tag.
set -eu
if since=$(git describe --tags --abbrev=0 2>/dev/null); then
  git log --no-merges --format='%h %s' "$since"..HEAD
else
  git log --no-merges --format='%h %s' -n 20
fi
