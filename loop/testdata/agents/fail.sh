#!/bin/sh
# fail.sh CODE [call]: a misbehaving agent that fails with exit CODE. With
# call, it first makes a proofloop call that is recorded but leaves its item
# as it was (it starts another problem); without, it fails before any
# proofloop call, printing an error object on stdout as Codex does when its
# endpoint refuses it.
if [ "$2" = call ]; then
  proofloop new-problem --name "side_$$" --objective "Started by a turn that then failed." --json
fi
echo '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key provided"}}'
echo "some warning on stderr" >&2
exit "$1"
