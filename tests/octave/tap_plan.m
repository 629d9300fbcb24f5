% SPDX-License-Identifier: GPL-2.0
% tap_plan(N): the TAP header, N tests to come.
function tap_plan(n)
  global TAP_N
  TAP_N = 0;
  printf('TAP version 13\n1..%d\n', n);
end
