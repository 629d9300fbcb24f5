% SPDX-License-Identifier: LGPL-2.1-or-later
% gm_at(AG, GDT, TN)  The record AG (sampled every GDT s) at time TN:
% linear between samples, 0 after the end, as librths's rths_hs_gm_at()
% computes it (own_loop.m then prints what own-loop.c prints).
function a = gm_at(ag, gdt, tn)
  x = tn / gdt;
  if abs(x - round(x)) < 1e-9
    x = round(x);
  end
  if x > numel(ag) - 1
    a = 0;
    return;
  end
  i = floor(x);
  if i + 1 >= numel(ag)
    a = ag(end);
  else
    a = ag(i + 1) + (ag(i + 2) - ag(i + 1)) * (x - i);
  end
end
