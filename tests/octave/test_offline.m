% SPDX-License-Identifier: GPL-2.0
% rths_mex on the offline modelled actuator: open, post, wait, stats,
% close; the feedback's fields; several channels; the actuator model's
% options; examples/matlab/own_loop.m against examples/c/own-loop.c.
tap_plan(15);

% a perfect actuator and a linear specimen: force = k disp, disp = target
h = rths_mex('open', 'offline', struct('stiffness', 5e5, 'step_ticks', 10));
tap_ok(isscalar(h) && isa(h, 'double'), 'open offline gives a numeric handle');
ok = true;
for n = 1:50
  u = 1e-3 * sin(n / 7);
  rths_mex('post', h, n, u);
  fb = rths_mex('wait', h, 1000);
  ok = ok && fb.step == n && fb.tick == 10 * n && abs(fb.disp - u) < 1e-15 ...
       && abs(fb.force - 5e5 * u) < 1e-9 && fb.flags == 0;
end
tap_ok(ok, '50 steps: step, tick, disp = target, force = k disp');
f = sort(fieldnames(fb))';
tap_ok(isequal(f, sort({'step', 'tick', 'time', 'flags', 'late_ticks', ...
                        'command', 'disp', 'force'})), ...
       'feedback fields: %s', strjoin(f, ' '));
tap_ok(abs(fb.time - 50 * 10 / 1024) < 1e-9, 'feedback time %.6f s = 500 ticks at 1024 Hz', fb.time);
s = rths_mex('stats', h);
tap_ok(strcmp(s.backend, 'offline') && s.steps == 50 && s.ticks == 500 && ...
       s.late_steps == 0, 'stats: offline, 50 steps, 500 ticks, none late');
rths_mex('close', h);
tap_ok(true, 'close');

% two channels, a full stiffness matrix
K = [2e5 -5e4; -5e4 1e5];
h = rths_mex('open', 'offline', struct('channels', 2, 'stiffness', K));
rths_mex('post', h, 1, [1e-3; -2e-3]);
fb = rths_mex('wait', h);
tap_ok(isequal(size(fb.force), [2 1]) && max(abs(fb.force - K * [1e-3; -2e-3])) < 1e-9, ...
       'two channels: force = K disp (%g %g N)', fb.force);
rths_mex('post', h, 2, [0 0]);
fb = rths_mex('wait', h);
tap_ok(fb.step == 2 && all(fb.force == 0), 'a row vector target is taken too');
rths_mex('close', h);

% the actuator model: a lag and a delay make the measured disp lag
h = rths_mex('open', 'offline', struct('lag', 0.01, 'delay_ticks', 4, ...
             'step_ticks', 8, 'stiffness', 1e6, 'damping', [100]));
rths_mex('post', h, 1, 1e-3);
fb = rths_mex('wait', h);
tap_ok(fb.disp > 0 && fb.disp < 1e-3 && fb.command == 1e-3, ...
       'lag and delay: disp %.3g m short of the 1 mm command', fb.disp);
rths_mex('close', h);
% noise with a seed: the same seed, the same bits
a = zeros(1, 2);
for r = 1:2
  h = rths_mex('open', 'offline', struct('noise_disp', 1e-6, 'noise_force', 1, 'seed', 9, 'stiffness', 1e5));
  rths_mex('post', h, 1, 1e-3);
  fb = rths_mex('wait', h);
  a(r) = fb.force;
  rths_mex('close', h);
end
tap_ok(a(1) == a(2) && a(1) ~= 100, 'noise with seed 9: the same force twice (%.9g N)', a(1));
% quantize: nm and uN
h = rths_mex('open', 'offline', struct('quantize', true, 'stiffness', 1e5));
rths_mex('post', h, 1, 1.23456789e-3);
fb = rths_mex('wait', h);
tap_ok(abs(fb.disp * 1e9 - round(fb.disp * 1e9)) < 1e-6, 'quantize: disp %.12g m on the nm', fb.disp);
rths_mex('close', h);

% several handles at once are independent
h1 = rths_mex('open', 'offline', struct('stiffness', 1));
h2 = rths_mex('open', 'offline', struct('stiffness', 2));
rths_mex('post', h1, 1, 1); rths_mex('post', h2, 1, 1);
f1 = rths_mex('wait', h1); f2 = rths_mex('wait', h2);
tap_ok(h1 ~= h2 && f1.force == 1 && f2.force == 2, 'two handles, two models');
rths_mex('close', h1); rths_mex('close', h2);

% the researcher's loop, offline, against the same loop in C
top = getenv('RTHS_TOP');
rec = fullfile(top, 'tests', 'data', 'elcentro-ns-1940.AT2');
[t, u, r] = own_loop(rec);
ref = fullfile(getenv('RTHS_WORK'), 'own-loop-c.txt');
st = system(sprintf('"%s/own-loop" -o "%s" > "%s"', fileparts(which('rths_mex')), rec, ref));
c = load(ref);
tap_ok(st == 0 && rows(c) == numel(t) && numel(t) > 3000, ...
       'own_loop.m and own-loop.c: %d and %d steps', numel(t), rows(c));
mine = sprintf('%.6f %.9e %.6e\n', [t(:) u(:) r(:)]');
theirs = fileread(ref);
tap_ok(strcmp(mine, theirs), 'own_loop.m prints what own-loop.c prints, to the digit');
tap_ok(max(abs(u)) > 1e-3, 'own_loop.m: the storey moved (max |u| %.3g m)', max(abs(u)));
