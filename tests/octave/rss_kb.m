% SPDX-License-Identifier: GPL-2.0
% rss_kb(): this process's resident set, kB (/proc/self/status VmRSS).
function kb = rss_kb()
  s = fileread('/proc/self/status');
  kb = str2double(regexp(s, 'VmRSS:\s*(\d+)', 'tokens', 'once'){1});
end
