% SPDX-License-Identifier: LGPL-2.1-or-later
% [ag, gdt] = read_at2(PATH)  A PEER NGA .AT2 record in units of g, as
% m/s^2, and its time step (s).
function [ag, gdt] = read_at2(path)
  f = fopen(path, 'r');
  if f < 0
    error('read_at2:record', 'cannot open %s', path);
  end
  for k = 1:4
    line = fgetl(f);
  end
  v = fscanf(f, '%f');
  fclose(f);
  tok = regexp(line, 'NPTS=\s*(\d+),\s*DT=\s*([0-9.Ee+-]+)', 'tokens', 'once');
  if isempty(tok)                   % older files: "5590   .0050   NPTS, DT"
    tok = regexp(line, '^\s*(\d+)\s+([0-9.Ee+-]+)', 'tokens', 'once');
  end
  npts = str2double(tok{1});
  gdt = str2double(tok{2});
  if numel(v) ~= npts
    error('read_at2:record', '%s: %d values, NPTS says %d', path, numel(v), npts);
  end
  ag = v * 9.80665;
end
