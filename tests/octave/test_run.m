% SPDX-License-Identifier: GPL-2.0
% rths_mex('run'): an experiment file through rths_hs_experiment_run();
% its history is the same call's from C bit for bit (run_history.c),
% rths-run --offline's history.csv to the CSV's nine significant digits,
% and the same bits twice; a run held on the way
% returns what it did; a bad file says file:line.
tap_plan(20);
top = getenv('RTHS_TOP'); work = getenv('RTHS_WORK'); tools = getenv('RTHS_TOOLS');

% examples/two-story-frame.json with a fixed step (rths-run would preview
% "auto") and 5 s of its synthetic record
function write_variant(src, dst, varargin)
  t = fileread(src);
  t = regexprep(t, '"step_ticks": "auto"', '"step_ticks": 8');
  t = regexprep(t, '"duration": 15', '"duration": 5');
  for k = 1:2:numel(varargin)
    t = regexprep(t, varargin{k}, varargin{k + 1});
  end
  f = fopen(dst, 'w'); fputs(f, t); fclose(f);
end
frame = fullfile(work, 'frame.json');
write_variant(fullfile(top, 'examples', 'two-story-frame.json'), frame);

[h, res] = rths_mex('run', frame, 'offline', true);
steps = res.steps_planned;
tap_ok(res.error == 0 && res.steps_done == steps && steps == 640 && ~res.held, ...
       'run offline: %d of %d steps, no error', res.steps_done, steps);
tap_ok(rows(h.u) == steps + 1 && columns(h.u) == 2 && columns(h.force) == 1 && ...
       numel(h.t) == steps + 1 && abs(h.dt - 8 / 1024) < 1e-15, ...
       'history: %d rows (row 1 is t = 0), 2 DOFs, 1 actuator, dt 8/1024 s', rows(h.u));
f = sort(fieldnames(h))';
tap_ok(isequal(f, sort({'dt', 't', 'ag', 'u', 'v', 'a', 'x_if', 'x_meas', 'f_meas', ...
                        'target', 'command', 'disp', 'force', 'compute', 'flags'})), ...
       'history fields: %s', strjoin(f, ' '));
tap_ok(isfield(res, 'stats') && res.stats.steps == steps && res.late_steps == 0, ...
       'result: the backend''s counters (%d steps)', res.stats.steps);

% the same call from C, printed in full: the same bits in every column
full = fullfile(work, 'run_history.txt');
st = system(sprintf('"%s/run_history" "%s" > "%s"', fileparts(which('rths_mex')), frame, full));
c = load(full);
mine = [h.t h.ag h.u h.v h.a h.target h.command h.disp h.force h.flags];
tap_ok(st == 0 && isequal(size(c), size(mine)) && isequal(c, mine), ...
       'the history is run_history.c''s bit for bit (%d x %d values, largest difference %g)', ...
       rows(mine), columns(mine), max(abs(c(:) - mine(:))));

% the same file through rths-run --offline
out = fullfile(work, 'rths-run');
st = system(sprintf('"%s/rths-run" --offline --no-plots --no-reference -q -o "%s" "%s"', ...
                    tools, out, frame));
tap_ok(st == 0, 'rths-run --offline ran the same file');
fid = fopen(fullfile(out, 'history.csv'));
head = strsplit(fgetl(fid), ',');
fclose(fid);
csv = dlmread(fullfile(out, 'history.csv'), ',', 1, 0);
tap_ok(rows(csv) == rows(h.u), 'history.csv has the same %d rows', rows(csv));
% each column of the CSV against the MEX's, printed as the CSV prints
% (%.9g) and read back: the same digits
cols = {'time_s', h.t; 'ag_mps2', h.ag; 'u1_m', h.u(:, 1); 'u2_m', h.u(:, 2); ...
        'v1_mps', h.v(:, 1); 'v2_mps', h.v(:, 2); 'a1_mps2', h.a(:, 1); ...
        'a2_mps2', h.a(:, 2); 'target1_m', h.target; 'command1_m', h.command; ...
        'disp1_m', h.disp; 'force1_N', h.force; 'flags', h.flags};
bad = {}; worst = 0; ulp9 = true;
for k = 1:rows(cols)
  j = find(strcmp(head, cols{k, 1}));
  mine = str2double(strsplit(sprintf('%.9g,', cols{k, 2}), ','))(1:end - 1)';
  if isempty(j) || rows(csv) ~= numel(mine) || any(mine ~= csv(:, j))
    bad{end + 1} = cols{k, 1};
  end
  x = cols{k, 2}; c = csv(:, j);
  d = abs(x - c) ./ max(abs(c), 1e-300);
  worst = max([worst; d(c ~= 0)]);
  % half a unit in the 9th significant digit of the value
  half = 0.5 * 10 .^ (floor(log10(abs(x))) - 8);
  ulp9 = ulp9 && all(abs(x - c) <= half * (1 + 1e-9) | x == c);
end
tap_ok(isempty(bad), 'every column equals history.csv to its 9 digits%s', ...
       strjoin(strcat({' differs: '}, bad), ''));
tap_ok(ulp9, 'every value within half a unit of the CSV''s 9th digit (largest relative difference %.2g)', worst);

% the same bits twice (seeded noise, the offline model)
h2 = rths_mex('run', frame, 'offline', true);
tap_ok(isequal(h.u, h2.u) && isequal(h.force, h2.force), 'a second run: the same bits');

% a fixed step over "auto" from the call, as rths-run -d does
[h3, r3] = rths_mex('run', frame, 'offline', true, 'step_ticks', 4);
tap_ok(r3.error == 0 && abs(h3.dt - 4 / 1024) < 1e-15 && r3.steps_done == 1280, ...
       '''step_ticks'', 4: dt 4/1024 s, %d steps', r3.steps_done);

% a run held on the way: both outputs say so, one output is an error
trip = fullfile(work, 'trip.json');
write_variant(frame, trip, '"stroke_max": 0.05', '"stroke_max": 0.001');
[h4, r4] = rths_mex('run', trip, 'offline', true);
tap_ok(r4.held && r4.error ~= 0 && r4.steps_done < steps && rows(h4.u) > 1 && ...
       ~isempty(strfind(r4.message, 'limit')), ...
       'held by a stroke limit at step %d: the history so far, and why: %s', ...
       r4.steps_done, r4.message);
tap_error(@() rths_mex('run', trip, 'offline', true), 'rths:run', ...
          'the same with one output: an error', 'limit');

% a device file with 'offline', true
sim = fullfile(top, 'examples', 'two-story-frame-sim.json');
[h5, r5] = rths_mex('run', sim, 'offline', true);
tap_ok(r5.error == 0 && r5.steps_done > 0, '''offline'', true runs a device file offline (%d steps)', r5.steps_done);

% ... and without it, the device's error (on a host without the module)
if exist('/sys/module/rths', 'dir')
  tap_ok(true, 'a device file without ''offline'' # SKIP the rths module is loaded here');
else
  tap_error(@() rths_mex('run', sim), 'rths:run', ...
            'a device file without ''offline'' and no module', 'module');
end

% a bad experiment file: file and line
bad = fullfile(work, 'bad.json');
write_variant(frame, bad, '"ratio": 0.05', '"ratio": 0.05,,');
tap_error(@() rths_mex('run', bad, 'offline', true), 'rths:experiment', ...
          'a JSON syntax error', 'bad.json:10');
write_variant(frame, bad, '"mass": 1000,', '"mas": 1000,');
tap_error(@() rths_mex('run', bad, 'offline', true), 'rths:experiment', ...
          'an unknown field, by its path', 'model.stories[0]');
tap_error(@() rths_mex('run', fullfile(work, 'none.json')), 'rths:experiment', ...
          'a missing file', 'none.json');
tap_error(@() rths_mex('run', fullfile(top, 'examples', 'two-story-frame.json'), 'offline', true), ...
          'rths:experiment', 'step_ticks "auto" without ''step_ticks''', 'auto');
tap_error(@() rths_mex('run', frame, 'ofline', true), 'rths:badOption', 'an unknown option', 'ofline');
