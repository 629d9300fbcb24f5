% SPDX-License-Identifier: GPL-2.0
% rths_mex's errors: each is an error with an id "rths:..." and a message
% (never a crash), for a bad handle, the wrong number or type of
% arguments, the library's own refusals and a missing device; none leaks
% (the resident set stays put over thousands of them); "clear rths_mex"
% closes what is open.
tap_plan(43);

h = rths_mex('open', 'offline', struct('stiffness', 1e5));
rths_mex('close', h);
% handles
tap_error(@() rths_mex('post', h, 1, 0), 'rths:badHandle', 'a closed handle', 'not open');
tap_error(@() rths_mex('close', h), 'rths:badHandle', 'closing twice');
tap_error(@() rths_mex('wait', 42), 'rths:badHandle', 'a number that was never a handle');
tap_error(@() rths_mex('stats', 'offline'), 'rths:badHandle', 'a string for a handle');
tap_error(@() rths_mex('stats', [h h]), 'rths:badHandle', 'two handles in one');
tap_error(@() rths_mex('stats', NaN), 'rths:badHandle', 'NaN');
tap_error(@() rths_mex('stats', h + 1i), 'rths:badHandle', 'a complex handle');
tap_error(@() rths_mex('stats', int64(h)), 'rths:badHandle', 'an int64 handle');
tap_error(@() rths_mex('stats', {h}), 'rths:badHandle', 'a cell');

% the command and the argument counts
tap_error(@() rths_mex(), 'rths:nargin', 'no command');
tap_error(@() rths_mex(1), 'rths:badArgument', 'a number for the command');
tap_error(@() rths_mex('launch'), 'rths:badCommand', 'an unknown command', 'launch');
tap_error(@() rths_mex('open'), 'rths:nargin', 'open without a device', 'rths_mex(''open''');
h = rths_mex('open', 'offline');
tap_error(@() rths_mex('post', h, 1), 'rths:nargin', 'post without a target');
tap_error(@() rths_mex('post', h, 1, 0, 0), 'rths:nargin', 'post with one argument too many');
tap_error(@() rths_mex('wait'), 'rths:nargin', 'wait without a handle');
tap_error(@() rths_mex('stats', h, 1), 'rths:nargin', 'stats with two arguments');
tap_error(@() rths_mex('close'), 'rths:nargin', 'close without a handle');
tap_error(@() rths_mex('run'), 'rths:nargin', 'run without a file');
tap_error(@() rths_mex('run', 'x.json', 'offline'), 'rths:nargin', 'run with an option without its value');
function r = two_outputs(varargin), [r, ~] = rths_mex(varargin{:}); end
tap_error(@() two_outputs('stats', h), 'rths:nargout', 'stats with two outputs');

% argument types and values
tap_error(@() rths_mex('post', h, 0, 0), 'rths:badArgument', 'step 0', 'whole number');
tap_error(@() rths_mex('post', h, 1.5, 0), 'rths:badArgument', 'step 1.5');
tap_error(@() rths_mex('post', h, 'a', 0), 'rths:badArgument', 'a string for the step');
tap_error(@() rths_mex('post', h, 1, [0 0]), 'rths:badArgument', 'two targets on one channel', '1 elements');
tap_error(@() rths_mex('post', h, 1, 1e-3i), 'rths:badArgument', 'a complex target');
tap_error(@() rths_mex('post', h, 1, int32(0)), 'rths:badArgument', 'an int32 target');
tap_error(@() rths_mex('wait', h, 0.5), 'rths:badArgument', 'a timeout of 0.5 ms');
tap_error(@() rths_mex('open', 'offline', 3), 'rths:badArgument', 'options that are not a struct');
tap_error(@() rths_mex('open', 'offline', struct('chanels', 2)), 'rths:badOption', 'a misspelt option', 'chanels');
tap_error(@() rths_mex('open', 'offline', struct('channels', 17)), 'rths:badArgument', '17 channels');
tap_error(@() rths_mex('open', 'offline', struct('channels', 2, 'stiffness', [1 2 3])), ...
          'rths:badOption', 'a stiffness of 3 values on 2 channels');
tap_error(@() rths_mex('open', 'offline', struct('lag', -1)), 'rths:open', 'a negative lag (the library says no)');
tap_error(@() rths_mex('open', 'rig0', struct()), 'rths:nargin', 'options for a device');
tap_error(@() rths_mex('open', ''), 'rths:badArgument', 'an empty device name');

% the library's refusals, with its message
tap_error(@() rths_mex('wait', h), 'rths:wait', 'wait before any post', 'not posted');
tap_error(@() rths_mex('post', h, 2, 0), 'rths:post', 'step 2 first', 'expected step 1');
rths_mex('post', h, 1, 0);
tap_error(@() rths_mex('post', h, 2, 0), 'rths:post', 'step 2 before step 1''s feedback');
tap_error(@() rths_mex('post', h, 1, 1e9), 'rths:post', 'a target out of range');
rths_mex('close', h);

% a missing device: the host has no rths module; the guest test
% (tests/vm/octave-guest.sh) has it and names a device that is not there
tap_error(@() rths_mex('open', 'no-such-rig'), 'rths:noDevice', 'a missing device');

% at most 32 at once, and closing makes room again
hs = zeros(1, 32);
for i = 1:32
  hs(i) = rths_mex('open', 'offline');
end
tap_error(@() rths_mex('open', 'offline'), 'rths:tooMany', 'a 33rd handle');
arrayfun(@(x) rths_mex('close', x), hs);

% no leak: errors after allocations, and opens left to "clear rths_mex"
function churn(n)
  for i = 1:n
    try, rths_mex('open', 'offline', struct('lag', -1)); catch, end
    try, rths_mex('open', 'no-such-rig'); catch, end
    try, rths_mex('post', 7, 1, 0); catch, end
    h = rths_mex('open', 'offline', struct('channels', 16, 'stiffness', 1));
    try, rths_mex('post', h, 1, zeros(1, 15)); catch, end
    if mod(i, 20) == 0
      clear rths_mex            % closes the 20 left open
    end
  end
  clear rths_mex
end
% (a leak grows every round; Octave's heap grows now and then)
churn(2000);                    % Octave's own first growth
d = zeros(1, 3);
for r = 1:3
  before = rss_kb();
  churn(2000);
  d(r) = rss_kb() - before;
end
tap_ok(min(d) < 64, 'resident set over three rounds of 10000 errors and 2000 opens closed by clear: %s kB', ...
       strjoin(arrayfun(@(x) sprintf('%+d', x), d, 'UniformOutput', false), ', '));

% clear rths_mex closes what is open: the handle is stale after it
h = rths_mex('open', 'offline');
clear rths_mex
tap_error(@() rths_mex('stats', h), 'rths:badHandle', 'a handle from before clear rths_mex');
