% SPDX-License-Identifier: GPL-2.0
% tap_ok(COND, DESC): one TAP line, "ok N - DESC" or "not ok N - DESC".
% The count is the global TAP_N; tests/octave/run.sh checks the plan.
function ok = tap_ok(cond, desc, varargin)
  global TAP_N
  if isempty(TAP_N)
    TAP_N = 0;
  end
  TAP_N = TAP_N + 1;
  ok = islogical(cond) || isnumeric(cond);
  ok = ok && ~isempty(cond) && all(cond(:));
  if ok
    printf('ok %d - %s\n', TAP_N, sprintf(desc, varargin{:}));
  else
    printf('not ok %d - %s\n', TAP_N, sprintf(desc, varargin{:}));
  end
end
