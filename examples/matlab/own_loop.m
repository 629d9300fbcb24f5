% SPDX-License-Identifier: LGPL-2.1-or-later
% own_loop  A researcher's own RTHS loop through rths_mex: the loop of
% examples/c/own-loop.c in MATLAB / GNU Octave.
%
% A one-storey structure (mass m, damping c, column stiffness kn
% computed) whose second column is the specimen, under a PEER .AT2
% record, integrated by an explicit central difference scheme.  Each step
% sends the displacement to the actuator and reads the specimen's
% restoring force back.
%
%   own_loop('elcentro.AT2')           offline: librths's modelled
%                                      actuator and a linear specimen ke
%   own_loop('elcentro.AT2', 'rig0')   an rths device (rthsctl dev add/set
%                                      it first: 1 channel, rate 1024,
%                                      step-ticks 10); the loop owns it
%   [t, u, r] = own_loop(...)          the history instead of printing
%
% Without outputs it prints one line per step, t u r (s, m, N), as
% own-loop.c does: the two print the same digits offline.
function [t, u, r] = own_loop(record, device)
  rate = 1024; step_ticks = 10;     % the device's rate and ticks a step
  dt = step_ticks / rate;           % 9.77 ms
  m = 2000; c = 5477; kn = 1e6;     % kg, Ns/m, N/m
  ke = 5e5;                         % N/m, the offline specimen

  [ag, gdt] = read_at2(record);
  duration = (numel(ag) - 1) * gdt;
  if nargin < 2
    h = rths_mex('open', 'offline', struct('rate', rate, ...
                 'step_ticks', step_ticks, 'stiffness', ke));
  else
    h = rths_mex('open', device);
  end
  steps = floor(duration / dt) + 2;
  t = zeros(steps, 1); u = t; r = t;
  u0 = 0; u1 = 0;                   % u(n-1), u(n)
  n = 1;
  try
    while (n - 1) * dt <= duration
      tn = (n - 1) * dt;
      rths_mex('post', h, n, u1);
      fb = rths_mex('wait', h, 1000);
      t(n) = tn; u(n) = u1; r(n) = fb.force(1);
      % m u'' + c u' + kn u + r = -m ag, central differences
      u2 = (-m * gm_at(ag, gdt, tn) - kn * u1 - r(n) + ...
            2 * m / (dt * dt) * u1 - ...
            (m / (dt * dt) - c / (2 * dt)) * u0) / ...
           (m / (dt * dt) + c / (2 * dt));
      u0 = u1; u1 = u2;
      n = n + 1;
    end
  catch e
    rths_mex('close', h);           % the device comes to rest
    rethrow(e);
  end
  rths_mex('close', h);
  t = t(1:n - 1); u = u(1:n - 1); r = r(1:n - 1);
  if nargout == 0
    fprintf('%.6f %.9e %.6e\n', [t u r]');
    clear t;
  end
end
