// The swap page: pick assets and an amount, compare the routes' quotes, create the order,
// send the deposit, and watch the order to its end. Every call goes to this origin's /api/.
import { ApiError, get, post, startSession } from './api.js';
import { countdownText, quoteDeadline } from './countdown.js';
import { fromBaseUnits, toBaseUnits } from './units.js';

const $ = (id) => document.getElementById(id);
const POPULAR = ['SOL', 'USDC', 'BTC', 'ETH', 'NEAR', 'USDT'];
const SHOWN_DECIMALS = 8;

const state = {
  session: null,
  assets: [],
  byId: new Map(),
  chainNames: new Map(),
  quote: null, // {request, response, fetchedAt}
  expiryTimer: 0,
  order: null,
  events: null,
};

// ---- small helpers ----------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function human(amount, assetId) {
  const a = state.byId.get(assetId);
  if (!a || amount == null) return '—';
  return `${fromBaseUnits(amount, a.decimals, SHOWN_DECIMALS)} ${a.symbol}`;
}

function chainName(key) { return state.chainNames.get(key) || key; }

function showError(err) {
  const box = $('error');
  if (!err) { box.hidden = true; box.replaceChildren(); return; }
  const p = err instanceof ApiError ? err.problem
    : { message: 'Something went wrong in the page.', action: 'Reload the page and try again.' };
  box.replaceChildren(el('strong', { text: p.message }), el('span', { text: p.action || '' }));
  box.hidden = false;
  box.focus();
}

function debounce(fn, ms) {
  let t = 0;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
}

function duration(seconds) {
  if (seconds < 90) return `about ${Math.max(1, Math.round(seconds))} s`;
  return `about ${Math.round(seconds / 60)} min`;
}

// ---- step 1: assets, amount, live rates --------------------------------------------------

function fillChains(select) {
  for (const [key, name] of state.chainNames) select.append(el('option', { value: key, text: name }));
}

function fillAssets(side) {
  const chain = $(`${side}-chain`).value;
  const q = $(`${side}-search`).value.trim().toLowerCase();
  const select = $(`${side}-asset`);
  const keep = select.value;
  const matches = state.assets.filter((a) => (!chain || a.chain === chain)
    && (!q || a.symbol.toLowerCase().includes(q) || a.name.toLowerCase().includes(q)));
  select.replaceChildren(...matches.map((a) => el('option', { value: a.assetId, text: assetLabel(a) })));
  if (matches.some((a) => a.assetId === keep)) select.value = keep;
}

// assetLabel reads "USDC — USD Coin (Ethereum)", or "ETH (Base)" when the name is the symbol.
function assetLabel(a) {
  const name = a.name && a.name !== a.symbol ? ` — ${a.name}` : '';
  return `${a.symbol}${name} (${chainName(a.chain)})`;
}

function selected(side) { return state.byId.get($(`${side}-asset`).value); }

// amountBase reads the amount field in the source asset's smallest unit, showing what is
// wrong under the field; null when it cannot.
function amountBase() {
  const from = selected('from');
  const input = $('amount');
  if (!from || input.value.trim() === '') { $('amount-msg').textContent = ''; input.removeAttribute('aria-invalid'); return null; }
  try {
    const v = toBaseUnits(input.value, from.decimals);
    $('amount-msg').textContent = '';
    input.removeAttribute('aria-invalid');
    return v;
  } catch (e) {
    $('amount-msg').textContent = e.message;
    input.setAttribute('aria-invalid', 'true');
    return null;
  }
}

// popularTargets picks up to four well-known assets to preview, each on the source's own
// chain when it is there (USDC on Ethereum for ETH on Ethereum).
function popularTargets(from) {
  const out = [];
  for (const sym of POPULAR) {
    const candidates = state.assets.filter((x) => x.symbol === sym && x.assetId !== from.assetId);
    const a = candidates.find((x) => x.chain === from.chain) || candidates[0];
    if (a) out.push(a);
    if (out.length === 4) break;
  }
  return out;
}

// Rates rows keep their place while they refresh: the list is replaced in one go, so nothing
// below it moves.
const refreshRates = debounce(async () => {
  const from = selected('from');
  const amount = amountBase();
  const list = $('rates');
  if (!from || !amount) { list.replaceChildren(el('li', { class: 'muted', text: 'Pick an asset and an amount to see rates.' })); return; }
  const targets = popularTargets(from);
  try {
    const res = await post('/api/rates', { from: from.assetId, amount, targets: targets.map((t) => t.assetId) });
    // Several chains carry ETH or USDC: each rate names its chain.
    list.replaceChildren(...res.rates.map((r) => el('li', {},
      el('span', { text: r.best ? `≈ ${human(r.best.amountOut, r.to)}` : `${state.byId.get(r.to)?.symbol}: no route` }),
      el('span', { class: 'chain', text: `on ${chainName(state.byId.get(r.to)?.chain)}` }))));
  } catch (e) {
    list.replaceChildren(el('li', { class: 'muted', text: e.message }));
  }
}, 400);

// ---- step 2: quotes --------------------------------------------------------------------

async function getQuote(ev) {
  ev?.preventDefault();
  showError(null);
  const from = selected('from');
  const to = selected('to');
  const amount = amountBase();
  if (!from || !to) { showError(new ApiError({ message: 'Pick the asset you send and the one you receive.', action: 'Choose both in the lists above.' })); return; }
  if (!amount) { $('amount').focus(); return; }
  if (from.assetId === to.assetId) { showError(new ApiError({ message: 'You picked the same asset twice.', action: 'Choose a different asset to receive.' })); return; }
  const request = { originAsset: from.assetId, destinationAsset: to.assetId, amount };
  const section = $('quote-section');
  const first = section.hidden || !state.quote;
  section.classList.add('refreshing');
  $('quote-btn').disabled = true;
  try {
    const response = await post('/api/quote', request);
    const chosen = document.querySelector('input[name="route"]:checked')?.value;
    state.quote = { request, response, fetchedAt: Date.now() };
    renderQuote(chosen);
    for (const span of document.querySelectorAll('[data-chain]')) span.textContent = chainName((span.dataset.chain === 'from' ? from : to).chain);
    section.hidden = false;
    if (first) $('quote-h').focus();
  } catch (e) {
    showError(e);
  } finally {
    section.classList.remove('refreshing');
    $('quote-btn').disabled = false;
  }
}

function renderQuote(chosen) {
  const { request, response } = state.quote;
  const best = response.best;
  const items = response.candidates.map((c) => {
    const isBest = best && c.providerId === best.providerId;
    const radio = el('input', { type: 'radio', name: 'route', value: c.providerId });
    radio.checked = chosen ? chosen === c.providerId : isBest;
    const fees = (c.fees || []).map((f) => `${f.type.toLowerCase()} fee ${human(f.amount, f.asset)}`).join(', ') || 'no fees';
    const meta = `via ${c.providerId} · at least ${human(c.minAmountOut ?? c.amountOut, request.destinationAsset)} · ${fees} · ${duration(c.estimatedTimeSeconds || 0)}`;
    return el('li', {}, el('label', {},
      radio,
      el('span', { class: 'route-out', text: human(c.amountOut, request.destinationAsset) }),
      isBest ? el('span', { class: 'badge', text: 'Best' }) : el('span'),
      el('span', { class: 'route-meta', text: meta })));
  });
  $('candidates').replaceChildren(...items);
  $('route-errors').replaceChildren(...(response.errors || []).map((e) => el('li', { text: `${e.providerId}: ${e.detail || e.error}` })));
  startExpiryCountdown();
}

// The countdown shows how long the quotes hold; at zero the page fetches fresh ones in place
// (the list keeps its height, nothing jumps).
function startExpiryCountdown() {
  clearInterval(state.expiryTimer);
  const deadline = quoteDeadline(state.quote.response.candidates, state.quote.fetchedAt);
  const tick = () => {
    const text = countdownText(deadline, Date.now());
    $('quote-expiry').textContent = text || 'Refreshing quotes…';
    if (!text && !$('quote-section').hidden && $('order-section').hidden) {
      clearInterval(state.expiryTimer);
      getQuote();
    }
  };
  tick();
  state.expiryTimer = setInterval(tick, 1000);
}

// ---- addresses -------------------------------------------------------------------------

const addressAsset = { sender: 'from', recipient: 'to', refundTo: 'from' };

function setFieldProblem(field, text) {
  $(`${field}-msg`).textContent = text || '';
  if (text) $(field).setAttribute('aria-invalid', 'true'); else $(field).removeAttribute('aria-invalid');
}

async function checkAddress(field) {
  const value = $(field).value.trim();
  if (value === '' && field === 'refundTo') { setFieldProblem(field, ''); return true; }
  const asset = selected(addressAsset[field]);
  if (!asset) return false;
  try {
    const res = await get(`/api/address-check?asset=${encodeURIComponent(asset.assetId)}&address=${encodeURIComponent(value)}`);
    setFieldProblem(field, res.ok ? '' : res.problem);
    return res.ok;
  } catch (e) {
    setFieldProblem(field, e.message);
    return false;
  }
}

// ---- step 3: the order -------------------------------------------------------------------

async function createOrder(ev) {
  ev.preventDefault();
  showError(null);
  const checks = await Promise.all(['sender', 'recipient', 'refundTo'].map(checkAddress));
  const bad = ['sender', 'recipient', 'refundTo'].find((_, i) => !checks[i]);
  if (bad) { $(bad).focus(); return; }
  const route = document.querySelector('input[name="route"]:checked');
  if (!route) { showError(new ApiError({ message: 'Pick a route first.', action: 'Choose one of the quotes above.' })); return; }
  const btn = $('order-btn');
  btn.disabled = true;
  btn.textContent = 'Creating order…';
  try {
    const order = await post('/api/orders', {
      ...state.quote.request,
      providerId: route.value,
      sender: $('sender').value.trim(),
      recipient: $('recipient').value.trim(),
      refundTo: $('refundTo').value.trim(),
      idempotencyKey: crypto.randomUUID(),
    });
    clearInterval(state.expiryTimer);
    openOrder(order);
    refreshRecent();
  } catch (e) {
    if (e.problem?.field) { setFieldProblem(e.problem.field, e.problem.message); $(e.problem.field).focus(); } else showError(e);
  } finally {
    btn.disabled = false;
    btn.textContent = 'Create order';
  }
}

function openOrder(order) {
  state.order = order;
  $('swap-section').hidden = true;
  $('quote-section').hidden = true;
  $('order-section').hidden = false;
  renderOrder(order);
  $('order-h').focus();
  watch(order.id);
}

function watch(id) {
  state.events?.close();
  if (state.order.terminal) return;
  const es = new EventSource(`/api/orders/${id}/events`);
  state.events = es;
  es.addEventListener('order', (e) => { const o = JSON.parse(e.data); if (o.id === state.order?.id) { renderOrder(o); refreshRecent(); } });
  es.addEventListener('problem', (e) => { $('status').textContent = `${JSON.parse(e.data).message} Still trying…`; });
  es.addEventListener('end', () => es.close());
}

function renderOrder(o) {
  state.order = o;
  // Once the swap is over, paying instructions would only mislead.
  $('order-h').textContent = o.terminal ? 'Your swap' : '3. Send your deposit';
  $('deposit-card').hidden = o.terminal;
  $('simulate').hidden = o.terminal || !state.session.simulator;
  $('order-id').textContent = o.id;
  $('order-provider').textContent = o.providerId;
  $('deposit-amount').textContent = human(o.amount, o.originAsset);
  $('deposit-address').textContent = o.depositAddress || 'being created…';
  $('memo-row').hidden = !o.depositMemo;
  $('deposit-memo').textContent = o.depositMemo || '';
  const qr = $('qr');
  if (o.depositAddress && !qr.src.endsWith(`/api/orders/${o.id}/qr.png`)) qr.src = `/api/orders/${o.id}/qr.png`;
  $('deadline').textContent = o.depositDeadline ? `Send before ${new Date(o.depositDeadline).toLocaleString()}.` : '';
  const awaiting = o.status === 'PENDING';
  for (const b of [$('sim-full'), $('sim-partial')]) b.disabled = !awaiting || !o.depositAddress;
  $('status').textContent = o.reasonText && !o.terminal ? `${o.statusText}. ${o.reasonText}` : o.statusText;
  $('timeline').replaceChildren(...(o.history || []).map((h) => el('li', {},
    el('span', { text: statusLabel(h.status) }), el('time', { datetime: h.at, text: new Date(h.at).toLocaleTimeString() }))));
  renderOutcome(o);
}

function statusLabel(status) {
  return { PENDING: 'Waiting for deposit', PROCESSING: 'Deposit received, swapping', SUCCESS: 'Sent to you', REFUNDED: 'Refunded', FAILED: 'Failed', UNKNOWN: 'Checking with the provider' }[status] || status;
}

function renderOutcome(o) {
  const box = $('outcome');
  box.className = `outcome ${o.status}`;
  box.hidden = !o.terminal;
  if (!o.terminal) { box.replaceChildren(); return; }
  const parts = [];
  if (o.status === 'SUCCESS') {
    parts.push(el('p', {}, el('strong', { text: `You received ${human(o.amountOut, o.destinationAsset)}` }), ` at ${o.recipient}.`));
    for (const t of o.outTxLinks) {
      parts.push(el('p', {}, 'Transaction: ', t.url ? el('a', { href: t.url, target: '_blank', rel: 'noopener noreferrer', text: t.hash }) : el('code', { text: t.hash })));
    }
  } else if (o.status === 'REFUNDED') {
    parts.push(el('p', {}, el('strong', { text: `Refunded ${human(o.refundedAmount, o.originAsset)}` }), ` to ${o.refundTo || o.sender}.`));
    if (o.reasonText) parts.push(el('p', { text: o.reasonText }));
    parts.push(el('p', { text: 'Start a new swap when you are ready.' }));
  } else {
    parts.push(el('p', {}, el('strong', { text: 'The swap failed.' })));
    parts.push(el('p', { text: o.reasonText || 'The provider did not say why. Nothing more will happen to this order; start a new swap.' }));
  }
  box.replaceChildren(...parts);
}

async function simulate(part) {
  showError(null);
  for (const b of [$('sim-full'), $('sim-partial')]) b.disabled = true;
  try {
    const res = await post(`/api/orders/${state.order.id}/simulate-deposit`, { part });
    $('status').textContent = `Deposit of ${human(res.amount, state.order.originAsset)} sent. Waiting for the provider…`;
  } catch (e) {
    showError(e);
    for (const b of [$('sim-full'), $('sim-partial')]) b.disabled = false;
  }
}

async function copyAddress() {
  const text = state.order?.depositAddress;
  if (!text) return;
  try {
    await navigator.clipboard.writeText(text);
    $('copy-msg').textContent = 'Copied.';
  } catch {
    const range = document.createRange();
    range.selectNodeContents($('deposit-address'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    $('copy-msg').textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
  }
}

function newSwap() {
  state.events?.close();
  state.order = null;
  state.quote = null;
  $('order-section').hidden = true;
  $('quote-section').hidden = true;
  $('swap-section').hidden = false;
  $('copy-msg').textContent = '';
  $('amount').focus();
}

// ---- recent orders -------------------------------------------------------------------------

async function refreshRecent() {
  try {
    const { orders } = await get('/api/orders');
    $('recent-empty').hidden = orders.length > 0;
    $('recent').replaceChildren(...orders.map((o) => {
      const b = el('button', { type: 'button' },
        el('span', { text: `${human(o.amount, o.originAsset)} → ${state.byId.get(o.destinationAsset)?.symbol ?? '?'}` }),
        el('span', { class: 'st', text: o.statusText }),
        el('span', { class: 'muted', text: new Date(o.createdAt).toLocaleString() }));
      b.addEventListener('click', () => openOrder(o));
      return el('li', {}, b);
    }));
  } catch {
    // The list is a convenience; the page works without it.
  }
}

// ---- start -----------------------------------------------------------------------------

async function start() {
  try {
    state.session = await startSession();
    const { assets, chains } = await get('/api/assets');
    state.assets = assets.sort((a, b) => a.symbol.localeCompare(b.symbol) || a.chain.localeCompare(b.chain));
    state.byId = new Map(assets.map((a) => [a.assetId, a]));
    state.chainNames = new Map(chains.map((c) => [c.key, c.name]));
  } catch (e) {
    showError(e);
    return;
  }
  for (const side of ['from', 'to']) {
    fillChains($(`${side}-chain`));
    fillAssets(side);
  }
  // Filtering the source list can drop the selected asset: the amount check and the rates
  // follow whatever is selected now.
  const fromChanged = () => { amountBase(); refreshRates(); };
  for (const [id, event] of [['chain', 'change'], ['search', 'input']]) {
    $(`from-${id}`).addEventListener(event, () => { fillAssets('from'); fromChanged(); });
    $(`to-${id}`).addEventListener(event, () => fillAssets('to'));
  }
  $('from-asset').addEventListener('change', fromChanged);
  $('amount').addEventListener('input', () => { amountBase(); refreshRates(); });
  $('swap-form').addEventListener('submit', getQuote);
  $('order-form').addEventListener('submit', createOrder);
  for (const f of ['sender', 'recipient', 'refundTo']) $(f).addEventListener('change', () => checkAddress(f));
  $('copy-btn').addEventListener('click', copyAddress);
  $('sim-full').addEventListener('click', () => simulate('full'));
  $('sim-partial').addEventListener('click', () => simulate('partial'));
  $('new-swap').addEventListener('click', newSwap);
  refreshRates();
  refreshRecent();
  document.body.dataset.ready = 'true';
}

start();
