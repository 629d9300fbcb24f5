% SPDX-License-Identifier: GPL-2.0
% tap_error(FN, ID, DESC): FN() must raise an error whose identifier is
% ID (and, if given, whose message contains TEXT); the message is shown
% as a TAP comment.
function msg = tap_error(fn, id, desc, text)
  msg = '';
  got = '(no error)';
  try
    fn();
  catch e
    got = e.identifier;
    msg = e.message;
  end
  printf('# %s: %s\n', got, msg);
  ok = strcmp(got, id);
  if nargin > 3
    ok = ok && ~isempty(strfind(msg, text));
  end
  tap_ok(ok, '%s: %s', desc, id);
end
