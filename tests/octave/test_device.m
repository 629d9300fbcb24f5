% SPDX-License-Identifier: GPL-2.0
% rths_mex on an rths device: the sim card in the test guest
% (tests/vm/octave-guest.sh made RTHS_MEX_DEVICE, 1 channel, hrtimer
% clock, 1024 Hz, 10 ticks a step, a perfect actuator and a 5e5 N/m
% specimen, and RTHS_MEX_MANUAL, the same under the manual clock).
% Open, post, wait, stats, close; the device's state after close and
% after "clear rths_mex"; its errors; own_loop.m and an experiment file
% run on it.
tap_plan(19);
dev = getenv('RTHS_MEX_DEVICE'); man = getenv('RTHS_MEX_MANUAL');
tools = getenv('RTHS_TOOLS'); top = getenv('RTHS_TOP'); work = getenv('RTHS_WORK');

% the device as rthsctl -j reports it
function d = show(tools, name)
  [st, out] = system(sprintf('"%s/rthsctl" -j dev show %s 2>&1', tools, name));
  d = struct('state', '(none)', 'owned', false);
  if st == 0
    j = jsondecode(out);
    if iscell(j), j = j{1}; end
    if isstruct(j) && numel(j) > 1, j = j(1); end
    d = j;
  end
end

h = rths_mex('open', dev);
s = rths_mex('stats', h);
d = show(tools, dev);
tap_ok(strcmp(s.backend, 'device') && strcmp(s.state, 'running') && d.owned, ...
       'open %s: owned and running (state %s)', dev, s.state);
ok = true; k = 5e5; worst = 0;
for n = 1:200
  u = 1e-3 * sin(2 * pi * n / 100);
  rths_mex('post', h, n, u);
  fb = rths_mex('wait', h, 2000);
  ok = ok && fb.step == n && numel(fb.force) == 1;
  worst = max(worst, abs(fb.force - k * fb.disp));
end
tap_ok(ok, '200 steps posted and their feedback waited for, in order');
tap_ok(worst < 1e-3, 'force = k disp on the sim card (worst %.3g N)', worst);
tap_ok(abs(fb.command - 1e-3 * sin(2 * pi * 200 / 100)) < 1e-8 && fb.tick > 0 && fb.time > 0, ...
       'the feedback''s command, tick %d and time %.3f s', fb.tick, fb.time);
s = rths_mex('stats', h);
tap_ok(s.steps >= 200 && isfield(s, 'thread_lat_max_ns'), ...
       'stats: %d steps, %d late, thread latency max %.0f us', s.steps, s.late_steps, ...
       s.thread_lat_max_ns / 1e3);
tap_error(@() rths_mex('open', dev), 'rths:open', 'a second owner of the same device');
rths_mex('close', h);
d = show(tools, dev);
tap_ok(~d.owned && strcmp(d.state, 'stopped'), 'close: stopped and let go (state %s)', d.state);
tap_error(@() rths_mex('stats', h), 'rths:badHandle', 'the closed handle');

% clear rths_mex lets go of an open device
h = rths_mex('open', dev);
rths_mex('post', h, 1, 0); rths_mex('wait', h, 2000);
clear rths_mex
d = show(tools, dev);
tap_ok(~d.owned && strcmp(d.state, 'stopped'), 'clear rths_mex: stopped and let go (state %s)', d.state);
tap_error(@() rths_mex('post', h, 2, 0), 'rths:badHandle', 'its handle after the clear');

% errors of the device layer
tap_error(@() rths_mex('open', 'no-such-rig'), 'rths:noDevice', 'a device that does not exist', 'no-such-rig');
h = rths_mex('open', man);
tap_error(@() rths_mex('wait', h, 100), 'rths:timeout', 'the manual clock, no tick: wait times out');
tap_error(@() rths_mex('post', h, 1, 1e9), 'rths:post', 'a target beyond the device''s range');
rths_mex('close', h);

% the researcher's loop on the device, against the same loop offline
rec = fullfile(top, 'tests', 'data', 'elcentro-ns-1940.AT2');
[t, u, r] = own_loop(rec, dev);
[to, uo] = own_loop(rec);
tap_ok(numel(t) == numel(to), 'own_loop.m on %s: all %d steps', dev, numel(t));
tap_ok(abs(max(abs(u)) - max(abs(uo))) < 0.05 * max(abs(uo)), ...
       'its peak %.4g m within 5%% of the offline loop''s %.4g m', max(abs(u)), max(abs(uo)));
tap_ok(max(abs(r - 5e5 * u)) < 0.05 * max(abs(r)), ...
       'the measured force follows ke u (worst %.3g N)', max(abs(r - 5e5 * u)));

% an experiment file on the device: the sim card it names is made and
% removed; 3 s of its record
t = fileread(fullfile(top, 'examples', 'two-story-frame-sim.json'));
t = regexprep(t, '"duration": 15', '"duration": 3');
t = regexprep(t, '"name": "rths0"', '"name": "octrun"');
f = fopen(fullfile(work, 'sim.json'), 'w'); fputs(f, t); fclose(f);
[hist, res] = rths_mex('run', fullfile(work, 'sim.json'));
tap_ok(res.error == 0 && res.steps_done == res.steps_planned && res.steps_done == 384, ...
       'run on the sim card: %d of %d steps, %d late: %s', res.steps_done, res.steps_planned, ...
       res.late_steps, res.message);
tap_ok(max(abs(hist.force)) > 0 && max(abs(hist.disp)) > 0, 'its history: the card moved and pushed back (peak %.3g N)', ...
       max(abs(hist.force)));
d = show(tools, 'octrun');
tap_ok(strcmp(d.state, '(none)'), 'the device it made is removed');
