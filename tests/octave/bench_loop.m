% SPDX-License-Identifier: GPL-2.0
% bench_loop(WHERE, N, RECORD): the loop of examples/matlab/own_loop.m
% for N steps, timed; WHERE 'offline' or a device name (1 channel, set
% up, not owned).  The Octave side of make bench-octave; prints the line
% tests/common/bench_loop.c prints: wall per step, compute per step (from
% a step's feedback to the next command posted) and its max, late steps.
function bench_loop(where, n, record)
  rate = 1024; step_ticks = 10; dt = step_ticks / rate;
  m = 2000; c = 5477; kn = 1e6; ke = 5e5;
  [ag, gdt] = read_at2(record);
  duration = (numel(ag) - 1) * gdt;
  if strcmp(where, 'offline')
    h = rths_mex('open', 'offline', struct('rate', rate, ...
                 'step_ticks', step_ticks, 'stiffness', ke));
  else
    h = rths_mex('open', where);
  end
  u0 = 0; u1 = 0; comp = 0; cmax = 0;
  t0 = tic;
  for k = 1:n
    tn = mod((k - 1) * dt, duration);
    rths_mex('post', h, k, u1);
    if k > 1
      d = toc(tfb);
      comp = comp + d;
      cmax = max(cmax, d);
    end
    fb = rths_mex('wait', h, 1000);
    tfb = tic;
    u2 = (-m * gm_at(ag, gdt, tn) - kn * u1 - fb.force(1) + ...
          2 * m / (dt * dt) * u1 - ...
          (m / (dt * dt) - c / (2 * dt)) * u0) / ...
         (m / (dt * dt) + c / (2 * dt));
    u0 = u1; u1 = u2;
  end
  wall = toc(t0);
  s = rths_mex('stats', h);
  rths_mex('close', h);
  printf('Octave %d steps: wall %.2f us/step, compute %.2f us/step (max %.1f), late %d\n', ...
         n, wall / n * 1e6, comp / (n - 1) * 1e6, cmax * 1e6, s.late_steps);
end
