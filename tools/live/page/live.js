// SPDX-License-Identifier: GPL-2.0
// The rths live view: one EventSource, dygraphs charts, a summary table.
// Read only: the page sends nothing but GET requests.
'use strict';

const WINDOW_S = 10;		// sliding window of the time charts
const LOOP_POINTS = 4000;	// force-displacement points kept
const LATE = 1 | 2 | 4;		// RTHS_FB_F_EXTRAPOLATED | HELD | DECELERATED

let hello = null, charts = [], computeChart = null, finished = false;
let series = [];		// per actuator: {track: [], err: [], loop: []}
let compute = [];
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

function start(h) {
	hello = h;
	setText('tool', h.tool);
	setText('name', h.name);
	setText('duration', num(h.duration));
	setText('budget', (h.budget_s * 1e3).toFixed(3) + ' ms');
	const parent = el('charts'), table = el('tracking');
	for (let i = 0; i < h.channels; i++) {
		series.push({ track: [], err: [], loop: [] });
		charts.push({
			track: chart(parent, 'Actuator ' + (i + 1) +
				     ': target and measured (m)',
				     ['t (s)', 'target', 'measured'], {}),
			err: chart(parent, 'Actuator ' + (i + 1) +
				   ': tracking error (mm)',
				   ['t (s)', 'measured - target'], {}),
			loop: chart(parent, 'Actuator ' + (i + 1) +
				    ': force against displacement',
				    ['displacement (m)', 'force (N)'],
				    { drawPoints: true, strokeWidth: 0,
				      pointSize: 1 }),
		});
		const row = table.insertRow();
		row.innerHTML = '<th>' + (i + 1) + '</th>' +
			['target', 'disp', 'force', 'j1', 'j2', 'j3'].map(
				k => '<td id="' + k + '-' + i + '">-</td>').join('');
	}
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
	computeChart = new Dygraph(el('compute'), [[0, null, null, null]], {
		labels: ['t (s)', 'compute', 'budget', 'late step'],
		series: { 'late step': { drawPoints: true, strokeWidth: 0,
					 pointSize: 3 } },
		legend: 'always',
	});
}

function trim(a, t0) {
	let k = 0;
	while (k < a.length && a[k][0] < t0)
		k++;
	if (k)
		a.splice(0, k);
}

function frames(d) {
	const n = d.t.length, s = d.summary;
	for (let p = 0; p < n; p++) {
		const t = d.t[p];
		for (let i = 0; i < hello.channels; i++) {
			const tg = d.target[i][p], x = d.disp[i][p];
			series[i].track.push([t, tg, x]);
			series[i].err.push([t, (x - tg) * 1e3]);
			series[i].loop.push([x, d.force[i][p]]);
		}
		compute.push([t, d.compute[p] * 1e3, hello.budget_s * 1e3,
			      (d.flags[p] & LATE) ? d.compute[p] * 1e3 : null]);
		if (rttChart)
			rtt.push([t].concat(d.rtt_ms.map(r => r[p])));
	}
	if (n) {
		const last = n - 1, t0 = d.t[last] - WINDOW_S;
		for (let i = 0; i < hello.channels; i++) {
			trim(series[i].track, t0);
			trim(series[i].err, t0);
			const loop = series[i].loop;
			if (loop.length > LOOP_POINTS)
				loop.splice(0, loop.length - LOOP_POINTS);
			setText('target-' + i, num(d.target[i][last]));
			setText('disp-' + i, num(d.disp[i][last]));
			setText('force-' + i, num(d.force[i][last]));
		}
		trim(compute, t0);
		trim(rtt, t0);
		el('step').dataset.step = d.step[last];
		setText('step', d.step[last]);
	}
	summary(s);
	draw();
}

function summary(s) {
	setText('t', num(s.t));
	setText('elapsed', s.elapsed_s.toFixed(1) + ' s');
	setText('remaining', s.state === 'running' ?
		s.remaining_s.toFixed(1) + ' s' : '-');
	['extrapolated', 'held', 'decelerated', 'over_budget', 'gaps',
	 'lost_frames'].forEach(k => setText(k, s[k]));
	setText('compute_max', (s.compute_max_s * 1e3).toFixed(3) + ' ms');
	s.tracking.forEach((j, i) => {
		setText('j1-' + i, j.j1_ms.toFixed(2));
		setText('j2-' + i, j.j2_pct.toFixed(2));
		setText('j3-' + i, j.j3_pct.toFixed(2));
	});
	(s.sites || []).forEach((x, i) => {
		setText('site-state-' + i, x.state);
		setText('site-rtt-' + i, x.rtt_ms.toFixed(2));
		setText('site-rtt_mean-' + i, x.rtt_mean_ms.toFixed(2));
		setText('site-rtt_max-' + i, x.rtt_max_ms.toFixed(2));
		setText('site-reissues-' + i, x.reissues);
		setText('site-reconnects-' + i, x.reconnects);
	});
	const st = el('state');
	st.textContent = s.state;
	st.className = 'state ' + s.state;
	if (s.state !== 'running')
		finished = true;
}

function draw() {
	for (let i = 0; i < hello.channels; i++) {
		const sorted = series[i].loop.slice().sort((a, b) => a[0] - b[0]);
		if (series[i].track.length) {
			charts[i].track.updateOptions({ file: series[i].track });
			charts[i].err.updateOptions({ file: series[i].err });
		}
		if (sorted.length)
			charts[i].loop.updateOptions({ file: sorted });
	}
	if (compute.length)
		computeChart.updateOptions({ file: compute });
	if (rttChart && rtt.length)
		rttChart.updateOptions({ file: rtt });
}

const es = new EventSource('events' + window.location.search);
es.addEventListener('hello', e => { if (!hello) start(JSON.parse(e.data)); });
es.addEventListener('frames', e => {
	if (hello)
		frames(JSON.parse(e.data));
	if (finished)
		es.close();	// the run is over: no reconnection
});
es.onerror = () => {
	if (!finished) {
		el('state').textContent = 'connection lost: retrying';
		el('state').className = 'state lost';
	}
};
