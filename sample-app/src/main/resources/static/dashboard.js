// The Offload dashboard: polls /api/pools (each device's health, pool: size, in use, idle, waiting, and memory budget in use), the most streams lent at once, keeps 5 minutes of history per device, draws it, and fires
// light and heavy requests at the pricing API and a scenario risk request at the portfolio API. Plain JavaScript, no build step.
'use strict';

const POLL_MS = 500;
const HISTORY_MS = 5 * 60 * 1000;
const SERIES = [
  { key: 'inUse', label: 'in use', color: '#2f6fde' },
  { key: 'idle', label: 'idle', color: '#9aa7bd' },
  { key: 'waiting', label: 'waiting', color: '#c2571a' },
];
const history = new Map();

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([name, value]) => node.setAttribute(name, value));
  children.forEach((child) => node.append(child));
  return node;
}

function deviceCard(device) {
  let card = document.querySelector(`.device[data-device="${device.id}"]`);
  if (card) {
    return card;
  }
  const numbers = el('div', { class: 'numbers' });
  [['size', 'size'], ['inUse', 'in use'], ['idle', 'idle'], ['waiting', 'waiting'], ['peakInUse', 'most lent at once'], ['memory', 'of memory budget']].forEach(([key, label]) => {
    numbers.append(el('div', {}, el('b', { class: `value-${key}` }, '0'), el('span', {}, label)));
  });
  const legend = el('div', { class: 'legend' });
  SERIES.forEach((series) => {
    const swatch = el('i');
    swatch.style.background = series.color;
    legend.append(swatch, series.label);
  });
  card = el('article', { class: 'device', 'data-device': String(device.id) },
    el('h2', {}, `Device ${device.id}`, el('span', { class: 'health' }, 'healthy')),
    numbers,
    el('canvas', { id: `chart-${device.id}`, width: '960', height: '300', 'data-points': '0', 'data-max-in-use': '0' }),
    legend);
  document.getElementById('devices').append(card);
  return card;
}

function update(device, now) {
  const card = deviceCard(device);
  const pool = device;
  const memory = (pool.memoryUse === null || pool.memoryUse === undefined) ? 'no budget' : `${(100 * pool.memoryUse).toFixed(1)}%`;
  const values = { size: pool.size, inUse: pool.inUse, idle: pool.idle, waiting: pool.waiting, peakInUse: pool.peakInUse, memory };
  Object.keys(values).forEach((key) => {
    const cell = card.querySelector(`.value-${key}`);
    if (cell) {
      cell.textContent = String(values[key]);
    }
  });
  const health = card.querySelector('.health');
  health.textContent = device.healthy ? 'healthy' : 'failed';
  health.classList.toggle('failed', !device.healthy);

  const points = history.get(device.id) || [];
  points.push({ t: now, inUse: pool.inUse, idle: pool.idle, waiting: pool.waiting });
  while (points.length && points[0].t < now - HISTORY_MS) {
    points.shift();
  }
  history.set(device.id, points);
  draw(card.querySelector('canvas'), points, now, pool.peakInUse);
}

function draw(canvas, points, now, peakInUse) {
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  ctx.clearRect(0, 0, width, height);
  const max = Math.max(4, ...points.map((p) => Math.max(p.inUse, p.idle, p.waiting)));
  ctx.strokeStyle = '#e3e6ec';
  ctx.fillStyle = '#777';
  ctx.font = '20px system-ui';
  for (let i = 0; i <= 4; i++) {
    const y = height - 20 - (i / 4) * (height - 40);
    ctx.beginPath();
    ctx.moveTo(40, y);
    ctx.lineTo(width, y);
    ctx.stroke();
    ctx.fillText(String(Math.round((i / 4) * max)), 0, y + 6);
  }
  const x = (t) => 40 + ((t - (now - HISTORY_MS)) / HISTORY_MS) * (width - 40);
  const y = (v) => height - 20 - (v / max) * (height - 40);
  SERIES.forEach((series) => {
    ctx.strokeStyle = series.color;
    ctx.lineWidth = 3;
    ctx.beginPath();
    points.forEach((p, i) => (i ? ctx.lineTo(x(p.t), y(p[series.key])) : ctx.moveTo(x(p.t), y(p[series.key]))));
    ctx.stroke();
  });
  canvas.dataset.points = String(points.length);
  // A lend shorter than the poll never shows in the points: the pool's own peak does.
  const peak = Math.max(Number(canvas.dataset.maxInUse), peakInUse || 0, ...points.map((p) => p.inUse));
  canvas.dataset.maxInUse = String(peak);
}

async function poll() {
  try {
    const response = await fetch('api/pools', { headers: { Accept: 'application/json' } });
    if (!response.ok) {
      throw new Error(`HTTP ${response.status}`);
    }
    const body = await response.json();
    const badge = document.getElementById('backend');
    badge.textContent = `${body.backend} backend · ${body.devices.length} device(s)`;
    badge.classList.toggle('down', body.devices.some((d) => !d.healthy));
    const now = Date.now();
    body.devices.forEach((device) => update(device, now));
  }
  catch (error) {
    document.getElementById('backend').textContent = `endpoint unavailable: ${error.message}`;
  }
  finally {
    setTimeout(poll, POLL_MS);
  }
}

function logRequest(name, status, millis, result) {
  const row = el('tr', { class: `request status-${status}` },
    el('td', {}, new Date().toLocaleTimeString()), el('td', {}, name), el('td', { class: 'http-status' }, String(status)),
    el('td', {}, `${millis.toFixed(1)} ms`), el('td', {}, result));
  const log = document.getElementById('request-log');
  log.prepend(row);
  while (log.children.length > 100) {
    log.lastChild.remove();
  }
}

function randomOptions(count) {
  return Array.from({ length: count }, () => ({
    spot: 80 + Math.random() * 40, strike: 80 + Math.random() * 40, maturity: 0.1 + Math.random() * 2,
    rate: 0.01 + Math.random() * 0.04, volatility: 0.1 + Math.random() * 0.4,
  }));
}

async function post(path, body) {
  const started = performance.now();
  const response = await fetch(path, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  return { response, json, millis: performance.now() - started };
}

async function priceLight(count = 1000) {
  const { response, json, millis } = await post('api/options/price', { options: randomOptions(count) });
  const result = response.ok ? `device ${json.device}, first call ${json.prices[0].call.toFixed(4)}` : (json.detail || '');
  logRequest(`price ${count.toLocaleString('en')}`, response.status, millis, result);
}

async function monteCarlo() {
  const request = { spot: 100, strike: 100, maturity: 1, rate: 0.03, volatility: 0.25, paths: 8 * 1024 * 1024 };
  const { response, json, millis } = await post('api/options/monte-carlo', request);
  if (!response.ok) {
    logRequest('monte carlo', response.status, millis, json.detail || '');
    return;
  }
  const started = performance.now() - millis;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const job = await (await fetch(`api/options/monte-carlo/${json.id}`)).json();
    if (job.status !== 'RUNNING' && job.status !== 'QUEUED') {
      const result = job.status === 'DONE'
        ? `${job.result.price.toFixed(4)} ± ${job.result.standardError.toFixed(4)} (closed form ${job.result.closedForm.toFixed(4)})`
        : job.error;
      logRequest('monte carlo 8M', job.status === 'DONE' ? 200 : 500, performance.now() - started, result);
      return;
    }
  }
}

// A portfolio of 64 positions over 16 risk factors (daily volatilities from 1% to 2.5%, all pairs correlated 0.3),
// valued in 20,000 scenarios drawn from that covariance: one 20,000 x 16 by 16 x 64 matrix product.
const RISK_FACTORS = 16;
const RISK_POSITIONS = 64;
const RISK_SCENARIOS = 20000;

function riskRequest() {
  const volatility = Array.from({ length: RISK_FACTORS }, (_, i) => 0.01 + (0.015 * i) / (RISK_FACTORS - 1));
  const covariance = volatility.map((vi, i) => volatility.map((vj, j) => (i === j ? vi * vi : 0.3 * vi * vj)));
  const positions = Array.from({ length: RISK_POSITIONS }, (_, p) => ({
    id: `book-${p + 1}`,
    sensitivities: Array.from({ length: RISK_FACTORS }, () => Math.round((Math.random() - 0.3) * 200000)),
  }));
  return { positions, generate: { count: RISK_SCENARIOS, seed: 42, covariance }, confidence: 0.99, worst: 3 };
}

function money(value) {
  return value.toLocaleString('en', { maximumFractionDigits: 0 });
}

async function scenarioRisk() {
  const { response, json, millis } = await post('api/portfolio/scenario-risk', riskRequest());
  const time = new Date().toLocaleTimeString();
  let result;
  if (response.ok) {
    const worst = json.worstScenarios[0];
    result = `VaR ${(100 * json.confidence).toFixed(0)}% ${money(json.portfolio.valueAtRisk)}, `
      + `ES ${money(json.portfolio.expectedShortfall)} (${json.positionCount} positions, ${json.factorCount} factors, `
      + `${json.scenarioCount.toLocaleString('en')} scenarios; worst #${worst.scenario}: ${money(worst.pnl)}) `
      + `on device ${json.device}`;
  }
  else {
    result = json.detail || '';
  }
  document.getElementById('risk-result').textContent =
    `Scenario risk at ${time}, ${millis.toFixed(1)} ms, HTTP ${response.status}: ${result}`;
  logRequest('scenario risk', response.status, millis, result);
}

function button(id, action, label) {
  document.getElementById(id).addEventListener('click', async () => {
    document.getElementById('status').textContent = `${label}…`;
    await action();
    document.getElementById('status').textContent = '';
  });
}

button('light-button', () => priceLight(1000), 'pricing');
button('burst-button', () => Promise.all(Array.from({ length: 50 }, () => priceLight(100))), 'burst');
button('heavy-button', monteCarlo, 'simulating');
document.getElementById('heavy-button').classList.add('heavy');
button('risk-button', scenarioRisk, 'valuing the portfolio');
document.getElementById('risk-button').classList.add('risk');
poll();
