// The swap page: a swap card at "/" (what you pay, what you receive, the routes' quotes, your
// addresses) and an order's page at "/order/{id}" (the deposit, the live status). Every call
// goes to this origin's /api/.
import { ApiError, get, post, startSession } from './api.js';
import { chainBadge } from './badges.js';
import { countdownText, quoteDeadline, timeLeftText } from './countdown.js';
import { openPicker } from './picker.js';
import { orderPath, startRouter } from './router.js';
import { fromBaseUnits, significant, toBaseUnits, usdText, usdValue } from './units.js';

const $ = (id) => document.getElementById(id);
const POPULAR = ['SOL', 'USDC', 'BTC', 'ETH', 'NEAR', 'USDT'];

const state = {
  session: null,
  assets: [],
  byId: new Map(),
  chainNames: new Map(),
  providerNames: {},
  from: null,
  to: null,
  quote: null, // {request, response, fetchedAt}
  quoteSeq: 0,
  expiryTimer: 0,
  order: null,
  events: null,
  deadlineTimer: 0,
  router: null,
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

const chainName = (key) => state.chainNames.get(key) || key;
const providerName = (id) => state.providerNames[id] || id;

// amount is a base-unit amount of assetId as people read it: four significant digits, the
// full amount on hover and when copied (see the copy handler below).
function amount(base, assetId, direction) {
  const a = state.byId.get(assetId);
  if (!a || base == null) return el('span', { text: '—' });
  const full = fromBaseUnits(base, a.decimals);
  return el('span', { class: 'amt-with-symbol' },
    el('span', { class: 'amt', title: `${full} ${a.symbol}`, 'data-full': full, text: significant(base, a.decimals, 4, direction) }),
    ` ${a.symbol}`);
}

function amountText(base, assetId, direction) { return amount(base, assetId, direction).textContent; }

function usdOf(base, assetId) {
  const a = state.byId.get(assetId);
  return a ? usdValue(base, a.decimals, a.priceUsd) : null;
}

// shortAddress reads "9xQe…VFin": enough to check against a wallet, short enough for a phone.
const shortAddress = (s) => (s.length > 12 ? `${s.slice(0, 4)}…${s.slice(-4)}` : s);

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

// limitText states the routes' bound in the source asset's units: "Minimum 0.003334 ETH"
// (rounded up, so the amount shown is always enough) or "Maximum 12.5 ETH" (rounded down).
// Without an amount a route refused it without stating its limit, so no number is the bound:
// it says only that no route takes the amount.
function limitText(limit, assetId) {
  if (!limit.amount) return `Amount too ${limit.kind === 'minimum' ? 'low' : 'high'} for every route`;
  if (limit.kind === 'minimum') return `Minimum ${amountText(limit.amount, assetId, 'up')}`;
  return `Maximum ${amountText(limit.amount, assetId, 'down')}`;
}

// Copying an amount copies all its digits, not the four shown.
document.addEventListener('copy', (ev) => {
  const sel = getSelection();
  if (!sel.rangeCount) return;
  const frag = sel.getRangeAt(0).cloneContents();
  const inside = sel.anchorNode?.parentElement?.closest('.amt');
  if (inside && sel.anchorNode === sel.focusNode) {
    ev.clipboardData.setData('text/plain', inside.dataset.full);
    ev.preventDefault();
    return;
  }
  const amts = frag.querySelectorAll('.amt');
  if (!amts.length) return;
  for (const a of amts) a.textContent = a.dataset.full;
  ev.clipboardData.setData('text/plain', frag.textContent);
  ev.preventDefault();
});

// ---- the swap card ------------------------------------------------------------------------

// renderTokenButton shows a side's token; its name for assistive technology starts with
// what the side is for ("You pay with ETH Ethereum"), the rest is what is visible.
function renderTokenButton(side) {
  const a = state[side];
  const b = $(`${side}-token`);
  const what = el('span', { class: 'sr-only', text: side === 'from' ? 'You pay with ' : 'You receive ' });
  b.classList.toggle('empty', !a);
  if (!a) {
    b.replaceChildren(what, el('span', { text: 'Select token' }));
    return;
  }
  b.replaceChildren(what, chainBadge(a.chain, 22), el('span', { class: 'token-sym', text: a.symbol }), ' ',
    el('span', { class: 'token-chain', text: chainName(a.chain) }));
  for (const span of document.querySelectorAll(`[data-chain="${side}"]`)) span.textContent = chainName(a.chain);
}

function pick(side) {
  openPicker({
    heading: side === 'from' ? 'You pay with' : 'You receive',
    assets: state.assets,
    current: state[side]?.assetId,
    chainName,
    onPick: (a) => {
      const other = side === 'from' ? 'to' : 'from';
      if (state[other]?.assetId === a.assetId) state[other] = state[side]; // picking the other side's token flips
      state[side] = a;
      $(`${side}-token`).focus();
      cardChanged();
    },
  });
}

function flip() {
  [state.from, state.to] = [state.to, state.from];
  cardChanged();
}

// amountBase reads the amount field in the source asset's smallest unit, saying what is
// wrong under the field; null when it cannot.
function amountBase() {
  const input = $('amount');
  setAmountProblem('');
  if (!state.from || input.value.trim() === '') return null;
  try {
    return toBaseUnits(input.value, state.from.decimals);
  } catch (e) {
    setAmountProblem(e.message);
    return null;
  }
}

function setAmountProblem(text) {
  $('amount-msg').textContent = text;
  if (text) $('amount').setAttribute('aria-invalid', 'true'); else $('amount').removeAttribute('aria-invalid');
}

function setOrderButton(text, enabled) {
  const b = $('order-btn');
  b.textContent = text;
  b.disabled = !enabled;
}

// cardChanged follows any change of the tokens or the amount: the top error goes (what it
// was about has changed), the USD value and the rates follow at once, quotes after typing stops.
function cardChanged() {
  showError(null);
  renderTokenButton('from');
  renderTokenButton('to');
  const base = amountBase();
  $('from-usd').textContent = base ? usdText(usdOf(base, state.from.assetId)) : '';
  clearQuote();
  if (!state.from || !state.to) setOrderButton('Select a token', false);
  else if (!base) setOrderButton('Enter an amount', false);
  else setOrderButton('Getting quotes…', false);
  refresh();
}

const refresh = debounce(() => { refreshRates(); refreshQuote(); }, 400);

function clearQuote() {
  state.quote = null;
  state.quoteSeq++;
  clearInterval(state.expiryTimer);
  $('to-amount').replaceChildren();
  $('to-usd').textContent = '';
  $('rate-line').replaceChildren();
  $('routes-box').hidden = true;
  $('addresses').hidden = true;
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

// The rates box previews popular targets for the amount; each row picks its target. Rows
// keep their place while they refresh: the list is replaced in one go.
async function refreshRates() {
  const from = state.from;
  const base = amountBase();
  const list = $('rates');
  if (!from || !base) { list.replaceChildren(el('li', { class: 'muted', text: 'Pick a token and an amount to compare.' })); return; }
  const targets = popularTargets(from);
  try {
    const res = await post('/api/rates', { from: from.assetId, amount: base, targets: targets.map((t) => t.assetId) });
    list.replaceChildren(...res.rates.map((r) => {
      const to = state.byId.get(r.to);
      if (!to) return el('li');
      let what;
      if (r.best) what = el('span', {}, '≈ ', amount(r.best.amountOut, r.to));
      else if (r.problem?.limit) what = el('span', { class: 'bad', text: `${to.symbol}: ${limitText(r.problem.limit, from.assetId)}` });
      else what = el('span', { class: 'muted', text: `${to.symbol}: ${r.problem?.message || 'no route'}` });
      const b = el('button', { type: 'button', class: 'rate' }, chainBadge(to.chain, 18), what,
        el('span', { class: 'chain', text: `on ${chainName(to.chain)}` }));
      b.addEventListener('click', () => { state.to = to; cardChanged(); });
      return el('li', {}, b);
    }));
  } catch (e) {
    list.replaceChildren(el('li', { class: 'muted', text: e.message }));
  }
}

async function refreshQuote() {
  const from = state.from;
  const to = state.to;
  const base = amountBase();
  if (!from || !to || !base) return;
  if (from.assetId === to.assetId) { setOrderButton('Pick two different tokens', false); return; }
  const request = { originAsset: from.assetId, destinationAsset: to.assetId, amount: base };
  const seq = ++state.quoteSeq;
  $('swap-form').classList.add('refreshing');
  try {
    const response = await post('/api/quote', request);
    if (seq !== state.quoteSeq) return; // the card changed meanwhile
    const chosen = document.querySelector('input[name="route"]:checked')?.value;
    state.quote = { request, response, fetchedAt: Date.now() };
    renderQuote(chosen);
  } catch (e) {
    if (seq !== state.quoteSeq) return;
    if (e.problem?.limit) {
      setAmountProblem(limitText(e.problem.limit, from.assetId));
      setOrderButton(e.problem.limit.kind === 'minimum' ? 'Amount below the minimum' : 'Amount above the maximum', false);
    } else {
      setOrderButton('No quote', false);
      showError(e);
    }
  } finally {
    if (seq === state.quoteSeq) $('swap-form').classList.remove('refreshing');
  }
}

// feesText sums a candidate's non-zero fees in dollars ("Fees ≈ $1.23"); fees in an asset
// without a price are named in their own units beside it.
function feesText(c) {
  const fees = (c.fees || []).filter((f) => BigInt(f.amount) > 0n);
  if (!fees.length) return 'No fees';
  let usd = 0;
  const unpriced = [];
  for (const f of fees) {
    const v = usdOf(f.amount, f.asset);
    if (v == null) unpriced.push(amountText(f.amount, f.asset)); else usd += v;
  }
  const parts = [];
  if (unpriced.length < fees.length) parts.push(`≈ ${usdText(usd)}`);
  return `Fees ${[...parts, ...unpriced].join(' + ')}`;
}

function chosenCandidate() {
  const { response } = state.quote;
  const id = document.querySelector('input[name="route"]:checked')?.value;
  return response.candidates.find((c) => c.providerId === id) || response.best;
}

function renderQuote(chosen) {
  const { request, response } = state.quote;
  // A provider applied after the page loaded is named from its first quote on.
  Object.assign(state.providerNames, response.providerNames || {});
  const best = response.best;
  const items = response.candidates.map((c) => {
    const isBest = best && c.providerId === best.providerId;
    const radio = el('input', { type: 'radio', name: 'route', value: c.providerId });
    radio.checked = chosen ? chosen === c.providerId : isBest;
    radio.addEventListener('change', renderChosen);
    const usd = usdText(usdOf(c.amountOut, request.destinationAsset));
    const meta = [usd && `≈ ${usd}`, feesText(c), duration(c.estimatedTimeSeconds || 0)].filter(Boolean).join(' · ');
    return el('li', {}, el('label', {},
      radio,
      el('span', { class: 'route-name', text: providerName(c.providerId) }),
      isBest ? el('span', { class: 'badge', text: 'Best' }) : el('span'),
      el('span', { class: 'route-out' }, amount(c.amountOut, request.destinationAsset)),
      el('span', { class: 'route-meta', text: meta })));
  });
  $('candidates').replaceChildren(...items);
  $('provider-notices').replaceChildren(...(response.providerNotices || []).map((t) => el('li', { text: t })));
  $('route-errors').replaceChildren(...(response.errors || []).map((e) => el('li', { text: `${providerName(e.providerId)}: ${e.detail || e.error}` })));
  $('routes-box').hidden = false;
  $('addresses').hidden = false;
  renderChosen();
  startExpiryCountdown();
}

// renderChosen shows the chosen route's output in the card, with its dollar value and the rate.
function renderChosen() {
  const c = chosenCandidate();
  const { request } = state.quote;
  if (!c) { setOrderButton('No route for this pair', false); return; }
  $('to-amount').replaceChildren(amount(c.amountOut, request.destinationAsset));
  $('to-usd').textContent = usdText(usdOf(c.amountOut, request.destinationAsset));
  const from = state.byId.get(request.originAsset);
  const to = state.byId.get(request.destinationAsset);
  const rate = Number(fromBaseUnits(c.amountOut, to.decimals)) / Number(fromBaseUnits(c.amountIn || request.amount, from.decimals));
  $('rate-line').textContent = `1 ${from.symbol} ≈ ${rate.toPrecision(4).replace(/\.?0+$/, '')} ${to.symbol}`;
  setOrderButton(`Swap via ${providerName(c.providerId)}`, true);
}

// The countdown shows how long the quotes hold; at zero the page fetches fresh ones in place.
function startExpiryCountdown() {
  clearInterval(state.expiryTimer);
  const deadline = quoteDeadline(state.quote.response.candidates, state.quote.fetchedAt);
  const tick = () => {
    const text = countdownText(deadline, Date.now());
    $('quote-expiry').textContent = text || 'Refreshing quotes…';
    if (!text && !$('swap-view').hidden) {
      clearInterval(state.expiryTimer);
      refreshQuote();
    }
  };
  tick();
  state.expiryTimer = setInterval(tick, 1000);
}

// ---- addresses and the order ---------------------------------------------------------------

const addressSide = { sender: 'from', recipient: 'to', refundTo: 'from' };

function setFieldProblem(field, text) {
  $(`${field}-msg`).textContent = text || '';
  if (text) $(field).setAttribute('aria-invalid', 'true'); else $(field).removeAttribute('aria-invalid');
}

async function checkAddress(field) {
  const value = $(field).value.trim();
  if (value === '' && field === 'refundTo') { setFieldProblem(field, ''); return true; }
  const asset = state[addressSide[field]];
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

async function createOrder(ev) {
  ev.preventDefault();
  showError(null);
  if (!state.quote) return;
  const checks = await Promise.all(['sender', 'recipient', 'refundTo'].map(checkAddress));
  const bad = ['sender', 'recipient', 'refundTo'].find((f, i) => !checks[i]);
  if (bad) { if (bad === 'refundTo') $('addresses').querySelector('details').open = true; $(bad).focus(); return; }
  const route = chosenCandidate();
  const btn = $('order-btn');
  const label = btn.textContent;
  setOrderButton('Creating order…', false);
  try {
    const order = await post('/api/orders', {
      ...state.quote.request,
      providerId: route.providerId,
      sender: $('sender').value.trim(),
      recipient: $('recipient').value.trim(),
      refundTo: $('refundTo').value.trim(),
      idempotencyKey: crypto.randomUUID(),
    });
    clearInterval(state.expiryTimer);
    state.order = order;
    state.router.navigate(orderPath(order.id));
  } catch (e) {
    if (e.problem?.field && $(`${e.problem.field}-msg`)) {
      // The order was for one route: without its number, the message says that route refused.
      setFieldProblem(e.problem.field, e.problem.limit?.amount ? limitText(e.problem.limit, state.from.assetId) : e.problem.message);
      $(e.problem.field).focus();
    } else showError(e);
  } finally {
    setOrderButton(label, true);
  }
}

// ---- the order's page -----------------------------------------------------------------------

async function showOrder(id) {
  $('order-body').hidden = true;
  $('order-h').textContent = 'Your swap';
  let order = state.order?.id === id ? state.order : null;
  state.order = null;
  if (!order) {
    try {
      order = await get(`/api/orders/${encodeURIComponent(id)}`);
    } catch (e) {
      // Another session's order, or no order at all: nothing of it is shown.
      if (location.pathname === orderPath(id)) showError(e);
      return;
    }
  }
  if (location.pathname !== orderPath(id)) return; // the user moved on meanwhile
  $('order-body').hidden = false;
  renderOrder(order);
  watch(order);
}

function watch(order) {
  state.events?.close();
  if (order.terminal) return;
  const es = new EventSource(`/api/orders/${order.id}/events`);
  state.events = es;
  es.addEventListener('order', (e) => { const o = JSON.parse(e.data); if (o.id === state.order?.id) { renderOrder(o); refreshRecent(); } });
  es.addEventListener('problem', (e) => { $('status').textContent = `${JSON.parse(e.data).message} Still trying…`; });
  es.addEventListener('end', () => es.close());
}

function renderOrder(o) {
  state.order = o;
  // Once the swap is over, paying instructions would only mislead.
  $('order-h').textContent = o.terminal ? 'Your swap' : 'Send your deposit';
  $('deposit-card').hidden = o.terminal;
  $('simulate').hidden = o.terminal || !state.session.simulator;
  $('order-id').textContent = o.id;
  $('order-provider').textContent = providerName(o.providerId);
  $('deposit-amount').replaceChildren(amount(o.amount, o.originAsset));
  $('deposit-address').textContent = o.depositAddress || 'being created…';
  $('memo-row').hidden = !o.depositMemo;
  $('deposit-memo').textContent = o.depositMemo || '';
  const qr = $('qr');
  if (o.depositAddress && !qr.src.endsWith(`/api/orders/${o.id}/qr.png`)) qr.src = `/api/orders/${o.id}/qr.png`;
  const out = o.quote?.amountOut;
  $('receive-line').replaceChildren(...(out ? ['You receive ≈ ', amount(out, o.destinationAsset), ' at ',
    el('code', { title: o.recipient, text: shortAddress(o.recipient) })] : []));
  startDeadline(o);
  const awaiting = o.status === 'PENDING';
  for (const b of [$('sim-full'), $('sim-partial')]) b.disabled = !awaiting || !o.depositAddress;
  $('status').textContent = o.reasonText && !o.terminal ? `${o.statusText}. ${o.reasonText}` : o.statusText;
  $('timeline').replaceChildren(...(o.history || []).map((h) => el('li', {},
    el('span', { text: statusLabel(h.status) }), el('time', { datetime: h.at, text: new Date(h.at).toLocaleTimeString() }))));
  renderOutcome(o);
  // A receipt is final, and worth keeping, once the swap is over.
  $('receipt-row').hidden = !o.terminal;
  $('receipt-link').href = `/api/orders/${o.id}/receipt`;
  $('receipt-link').download = `receipt-${o.id}.jws`;
}

// startDeadline counts the deposit window down while the order waits for the deposit.
function startDeadline(o) {
  clearInterval(state.deadlineTimer);
  const line = $('deadline');
  if (o.status !== 'PENDING' || !o.depositDeadline) { line.textContent = ''; return; }
  const tick = () => {
    const left = timeLeftText(o.depositDeadline, Date.now());
    line.textContent = left ? `Send within ${left}` : 'The deposit window has closed: do not send anything to this address.';
    if (!left) clearInterval(state.deadlineTimer);
  };
  tick();
  state.deadlineTimer = setInterval(tick, 1000);
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
  // Some providers (Relay) report the transactions but not the amounts: the page then says
  // what it knows and names the quote as a quote, never as what arrived.
  const unreported = (what) => el('p', { text: `${providerName(o.providerId)} does not report the amount ${what}.` });
  if (o.status === 'SUCCESS') {
    if (o.amountOut != null) {
      parts.push(el('p', {}, el('strong', {}, 'You received ', amount(o.amountOut, o.destinationAsset)), ` at ${o.recipient}.`));
    } else {
      parts.push(el('p', {}, el('strong', { text: 'Sent to you' }), ` at ${o.recipient}.`));
      parts.push(o.quote?.amountOut
        ? el('p', {}, `${providerName(o.providerId)} does not report the amount it sent; you were quoted ≈ `, amount(o.quote.amountOut, o.destinationAsset), '.')
        : unreported('it sent'));
    }
    for (const t of o.outTxLinks) {
      parts.push(el('p', {}, 'Transaction: ', t.url ? el('a', { href: t.url, target: '_blank', rel: 'noopener noreferrer', text: t.hash }) : el('code', { text: t.hash })));
    }
  } else if (o.status === 'REFUNDED') {
    if (o.refundedAmount != null) {
      parts.push(el('p', {}, el('strong', {}, 'Refunded ', amount(o.refundedAmount, o.originAsset)), ` to ${o.refundTo || o.sender}.`));
    } else {
      parts.push(el('p', {}, el('strong', { text: 'Refunded' }), ` to ${o.refundTo || o.sender}.`), unreported('it refunded'));
    }
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
    $('status').textContent = `Deposit of ${amountText(res.amount, state.order.originAsset)} sent. Waiting for the provider…`;
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

// ---- recent orders ----------------------------------------------------------------------------

async function refreshRecent() {
  try {
    const { orders } = await get('/api/orders');
    $('recent-empty').hidden = orders.length > 0;
    $('recent').replaceChildren(...orders.map((o) => el('li', {}, el('a', { href: orderPath(o.id), 'data-nav': '' },
      el('span', { text: `${amountText(o.amount, o.originAsset)} → ${state.byId.get(o.destinationAsset)?.symbol ?? '?'}` }),
      el('span', { class: 'st', text: o.statusText }),
      el('span', { class: 'muted', text: new Date(o.createdAt).toLocaleString() })))));
  } catch {
    // The list is a convenience; the page works without it.
  }
}

// ---- views and start -------------------------------------------------------------------------

let firstView = true;

function show(route) {
  showError(null);
  state.events?.close();
  clearInterval(state.deadlineTimer);
  const onOrder = route.view === 'order';
  $('swap-view').hidden = onOrder;
  $('order-view').hidden = !onOrder;
  if (onOrder) showOrder(route.id); else if (state.quote === null) refresh();
  else startExpiryCountdown();
  refreshRecent();
  // A new view takes focus to its heading, as a page load would put the reader at the top.
  if (!firstView) $(onOrder ? 'order-h' : 'swap-h').focus();
  firstView = false;
  document.title = onOrder ? 'Your swap — swaprouter' : 'Swap — swaprouter';
}

async function start() {
  try {
    state.session = await startSession();
    const { assets, chains, providerNames } = await get('/api/assets');
    state.assets = assets.sort((a, b) => a.symbol.localeCompare(b.symbol) || a.chain.localeCompare(b.chain));
    state.byId = new Map(assets.map((a) => [a.assetId, a]));
    state.chainNames = new Map(chains.map((c) => [c.key, c.name]));
    state.providerNames = providerNames || {};
  } catch (e) {
    showError(e);
    return;
  }
  state.from = state.assets.find((a) => a.chain === 'eth' && a.symbol === 'ETH') || state.assets[0] || null;
  $('swap-h').setAttribute('tabindex', '-1');
  $('from-token').addEventListener('click', () => pick('from'));
  $('to-token').addEventListener('click', () => pick('to'));
  $('flip').addEventListener('click', flip);
  $('amount').addEventListener('input', cardChanged);
  $('swap-form').addEventListener('submit', createOrder);
  for (const f of ['sender', 'recipient', 'refundTo']) $(f).addEventListener('change', () => checkAddress(f));
  $('copy-btn').addEventListener('click', copyAddress);
  $('sim-full').addEventListener('click', () => simulate('full'));
  $('sim-partial').addEventListener('click', () => simulate('partial'));
  renderTokenButton('from');
  renderTokenButton('to');
  state.router = startRouter(show);
  document.body.dataset.ready = 'true';
}

start();
