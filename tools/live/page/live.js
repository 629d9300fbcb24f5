// SPDX-License-Identifier: GPL-2.0
// The rths live view: one EventSource, dygraphs charts, a summary table.
// Read only: the page sends nothing but GET requests.  rths-site's view
// has a panel per device substructure ("subs"), each as a run's.
'use strict';

const WINDOW_S = 10;		// sliding window of the time charts
const LOOP_POINTS = 4000;	// force-displacement points kept
const LATE = 1 | 2 | 4;		// RTHS_FB_F_EXTRAPOLATED | HELD | DECELERATED

let hello = null, panels = [], finished = false;
let rtt = [], rttChart = null;	// rths-coord: each site's round trip

function el(id) { return document.getElementById(id); }
function num(v) { return Number.isFinite(v) ? v.toPrecision(9) : '-'; }
function setText(id, v) { const e = el(id); if (e) e.textContent = v; }

function chart(parent, title, labels, opts) {
	const box = document.createElement('div');
	box.className = 'chart-box';
	const h = document.createElement('h2');
	h.textContent = title;
	const div = document.createElement('div');
	div.className = 'chart';
	box.appendChild(h);
	box.appendChild(div);
	parent.appendChild(box);
	return new Dygraph(div, [[0].concat(labels.slice(1).map(() => null))],
		Object.assign({ labels: labels, legend: 'always',
				labelsSeparateLines: false }, opts));
}

// A substructure's section: the run's summary, tracking table and charts
// with its ids prefixed.
function subSection(i, name) {
	const p = 's' + i + '-', sec = document.createElement('section');
	sec.className = 'sub';
	sec.innerHTML = '<h2 class="sub-name"></h2> <span id="' + p +
		'state" class="state">waiting</span>' +
		el('run-summary').innerHTML.replace(/id="/g, 'id="' + p) +
		'<section id="' + p + 'charts" class="charts"></section>';
	sec.querySelector('.sub-name').textContent = name;
	el('subs').appendChild(sec);
	return p;
}

function panel(h, p) {
	const P = { h: h, p: p, charts: [], series: [], compute: [] };
	setText(p + 'duration', h.duration ? num(h.duration) : '-');
	setText(p + 'budget', (h.budget_s * 1e3).toFixed(3) + ' ms');
	const parent = el(p + 'charts'), table = el(p + 'tracking');
	const who = p ? h.name + ' DOF ' : 'Actuator ';
	for (let i = 0; i < h.channels; i++) {
		P.series.push({ track: [], err: [], loop: [] });
		P.charts.push({
			track: chart(parent, who + (i + 1) +
				     ': target and measured (m)',
				     ['t (s)', 'target', 'measured'], {}),
			err: chart(parent, who + (i + 1) +
				   ': tracking error (mm)',
				   ['t (s)', 'measured - target'], {}),
			loop: chart(parent, who + (i + 1) +
				    ': force against displacement',
				    ['displacement (m)', 'force (N)'],
				    { drawPoints: true, strokeWidth: 0,
				      pointSize: 1 }),
		});
		const row = table.insertRow();
		row.innerHTML = '<th>' + (i + 1) + '</th>' +
			['target', 'disp', 'force', 'j1', 'j1b', 'j2', 'j3'].map(
				k => '<td id="' + p + k + '-' + i + '">-</td>').join('');
	}
	const late = { series: { 'late step': { drawPoints: true,
						strokeWidth: 0, pointSize: 3 } } },
	      labels = ['t (s)', 'compute', 'budget', 'late step'];
	P.computeChart = p ? chart(parent.parentNode, h.name +
		': step compute time against the budget (ms)', labels, late) :
		new Dygraph(el('compute'), [[0, null, null, null]],
			    Object.assign({ labels: labels, legend: 'always' },
					  late));
	return P;
}

function start(h) {
	hello = h;
	setText('tool', h.tool);
	setText('name', h.name);
	document.title = h.tool + ': ' + h.name;
	if (h.subs) {
		el('run').hidden = true;
		h.subs.forEach((s, i) => panels.push(panel(s, subSection(i, s.name))));
		return;
	}
	panels.push(panel(h, ''));
	if (h.sites && h.sites.length) {
		el('site-box').hidden = false;
		const sites = el('sites');
		h.sites.forEach((name, i) => {
			const row = sites.insertRow();
			row.innerHTML = '<th>' + name + '</th>' +
				['state', 'rtt', 'rtt_mean', 'rtt_max', 'reissues',
				 'reconnects'].map(k => '<td id="site-' + k + '-' +
						   i + '">-</td>').join('');
		});
		rttChart = new Dygraph(el('rtt'),
			[[0].concat(h.sites.map(() => null))],
			{ labels: ['t (s)'].concat(h.sites), legend: 'always' });
	}
}

function trim(a, t0) {
	let k = 0;
	while (k < a.length && a[k][0] < t0)
		k++;
	if (k)
		a.splice(0, k);
}

function frames(P, d) {
	const n = d.t.length, h = P.h, p = P.p;
	// a substructure's new test: its charts start afresh
	if (n && P.compute.length && d.t[0] < P.compute[P.compute.length - 1][0]) {
		P.compute.length = 0;
		P.series.forEach(s => { s.track = []; s.err = []; s.loop = []; });
	}
	for (let q = 0; q < n; q++) {
		const t = d.t[q];
		for (let i = 0; i < h.channels; i++) {
			const tg = d.target[i][q], x = d.disp[i][q];
			P.series[i].track.push([t, tg, x]);
			P.series[i].err.push([t, (x - tg) * 1e3]);
			P.series[i].loop.push([x, d.force[i][q]]);
		}
		P.compute.push([t, d.compute[q] * 1e3, h.budget_s * 1e3,
				(d.flags[q] & LATE) ? d.compute[q] * 1e3 : null]);
		if (rttChart)
			rtt.push([t].concat(d.rtt_ms.map(r => r[q])));
	}
	if (n) {
		const last = n - 1, t0 = d.t[last] - WINDOW_S;
		for (let i = 0; i < h.channels; i++) {
			trim(P.series[i].track, t0);
			trim(P.series[i].err, t0);
			const loop = P.series[i].loop;
			if (loop.length > LOOP_POINTS)
				loop.splice(0, loop.length - LOOP_POINTS);
			setText(p + 'target-' + i, num(d.target[i][last]));
			setText(p + 'disp-' + i, num(d.disp[i][last]));
			setText(p + 'force-' + i, num(d.force[i][last]));
		}
		trim(P.compute, t0);
		trim(rtt, t0);
		el(p + 'step').dataset.step = d.step[last];
		setText(p + 'step', d.step[last]);
	}
	summary(P, d.summary);
	draw(P);
}

function summary(P, s) {
	const p = P.p;
	setText(p + 't', num(s.t));
	setText(p + 'elapsed', s.elapsed_s.toFixed(1) + ' s');
	setText(p + 'remaining', s.state === 'running' && s.remaining_s ?
		s.remaining_s.toFixed(1) + ' s' : '-');
	['extrapolated', 'held', 'decelerated', 'over_budget', 'gaps',
	 'lost_frames'].forEach(k => setText(p + k, s[k]));
	setText(p + 'compute_max', (s.compute_max_s * 1e3).toFixed(3) + ' ms');
	s.tracking.forEach((j, i) => {
		setText(p + 'j1-' + i, j.j1_ms.toFixed(2));
		setText(p + 'j1b-' + i, j.j1_benchmark_ms === null ? '-' :
			j.j1_benchmark_ms.toFixed(2));
		setText(p + 'j2-' + i, j.j2_pct.toFixed(2));
		setText(p + 'j3-' + i, j.j3_pct.toFixed(2));
	});
	(s.sites || []).forEach((x, i) => {
		setText('site-state-' + i, x.state);
		setText('site-rtt-' + i, x.rtt_ms.toFixed(2));
		setText('site-rtt_mean-' + i, x.rtt_mean_ms.toFixed(2));
		setText('site-rtt_max-' + i, x.rtt_max_ms.toFixed(2));
		setText('site-reissues-' + i, x.reissues);
		setText('site-reconnects-' + i, x.reconnects);
	});
	const st = el(p + 'state');
	st.textContent = s.state;
	st.className = 'state ' + s.state;
}

function draw(P) {
	for (let i = 0; i < P.h.channels; i++) {
		const S = P.series[i];
		const sorted = S.loop.slice().sort((a, b) => a[0] - b[0]);
		if (S.track.length) {
			P.charts[i].track.updateOptions({ file: S.track });
			P.charts[i].err.updateOptions({ file: S.err });
		}
		if (sorted.length)
			P.charts[i].loop.updateOptions({ file: sorted });
	}
	if (P.compute.length)
		P.computeChart.updateOptions({ file: P.compute });
	if (rttChart && rtt.length)
		rttChart.updateOptions({ file: rtt });
}

function event(d) {
	if (d.subs)
		d.subs.forEach((s, i) => frames(panels[i], s));
	else
		frames(panels[0], d);
	const st = el('state');
	st.textContent = d.summary.state;
	st.className = 'state ' + d.summary.state;
	if (d.summary.state !== 'running')
		finished = true;
}

const es = new EventSource('events' + window.location.search);
es.addEventListener('hello', e => { if (!hello) start(JSON.parse(e.data)); });
es.addEventListener('frames', e => {
	if (hello)
		event(JSON.parse(e.data));
	if (finished)
		es.close();	// the run is over: no reconnection
});
es.onerror = () => {
	if (!finished) {
		el('state').textContent = 'connection lost: retrying';
		el('state').className = 'state lost';
	}
};
