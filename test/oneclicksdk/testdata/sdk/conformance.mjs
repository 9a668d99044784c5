// Drives one simulated 1Click account with 1Click's official TypeScript SDK through every
// call swaprouter's oneclick adapter makes, and checks each quote with the SDK's own signature
// verification. Run by test/oneclicksdk (go test), which starts the simulator and reads the
// report this prints as JSON on its last line.
//
// Environment: SIM_URL (the simulator), PROVIDER_PATH (the account's path under it: route_A,
// or another oneclick instance), TOKEN (its bearer token), SIGNING_KEY (the public key it
// serves), HASH_FILES (QuoteResponse files whose quoteHash to report).
import { readFileSync } from 'node:fs';
import {
  ApiError, OneClickService, OpenAPI, quoteHash, verifyQuoteSignature,
} from '@defuse-protocol/one-click-sdk-typescript';

const { SIM_URL, PROVIDER_PATH, TOKEN, SIGNING_KEY } = process.env;
OpenAPI.BASE = `${SIM_URL}/${PROVIDER_PATH}`;
OpenAPI.TOKEN = TOKEN;

const report = { steps: [], hashes: {} };
const step = (name, detail = {}) => report.steps.push({ name, ...detail });
const fail = (msg) => { throw new Error(msg); };

const ETH = 'nep141:eth.omft.near';
const SOL = 'nep141:sol.omft.near';
const POINT_ONE_ETH = '100000000000000000';

// What the adapter sends (internal/provider/oneclick), with the SDK's other request fields
// where a step needs them.
const quoteRequest = (extra) => ({
  dry: true,
  depositMode: 'SIMPLE',
  swapType: 'EXACT_INPUT',
  slippageTolerance: 100,
  originAsset: ETH,
  depositType: 'ORIGIN_CHAIN',
  destinationAsset: SOL,
  amount: POINT_ONE_ETH,
  refundTo: '0x1111111111111111111111111111111111111111',
  refundType: 'ORIGIN_CHAIN',
  recipient: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  recipientType: 'DESTINATION_CHAIN',
  deadline: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
  appFees: [{ recipient: 'partner-fees.near', fee: 25 }],
  ...extra,
});

// quote gets a quote and checks its signature with the simulator's key, and that 1Click's
// published key (the SDK's default) rejects it, so the check is not vacuous.
async function quote(name, extra) {
  const resp = await OneClickService.getQuote(quoteRequest(extra));
  if (!verifyQuoteSignature(resp, SIGNING_KEY)) fail(`${name}: verifyQuoteSignature rejects the simulator's signature`);
  if (verifyQuoteSignature(resp)) fail(`${name}: the quote verifies with 1Click's published key`);
  step(name, { swapType: resp.quoteRequest.swapType, dry: resp.quoteRequest.dry, signatureVerified: true,
    depositAddress: resp.quote.depositAddress ?? '', minAmountIn: resp.quote.minAmountIn, amountIn: resp.quote.amountIn,
    amountOut: resp.quote.amountOut });
  return resp;
}

// deposit is the simulated user's transfer on the simulated chain (not a 1Click call).
async function deposit(address, amount) {
  const r = await fetch(`${SIM_URL}/chain/deposits`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ depositAddress: address, amount }),
  });
  if (!r.ok) fail(`deposit to ${address}: ${r.status} ${await r.text()}`);
  return (await r.json()).txHash;
}

// awaitStatus polls getExecutionStatus until the address reaches want (the go test's
// deadline bounds the wait) and checks the saved quote still verifies.
async function awaitStatus(name, address, want) {
  const seen = [];
  for (;;) {
    const s = await OneClickService.getExecutionStatus(address);
    if (seen.at(-1) !== s.status) seen.push(s.status);
    if (s.status === want) {
      if (!verifyQuoteSignature(s.quoteResponse, SIGNING_KEY)) fail(`${name}: the status's quoteResponse does not verify`);
      step(name, { statuses: seen, swapDetails: s.swapDetails });
      return s;
    }
    if (['SUCCESS', 'REFUNDED', 'FAILED'].includes(s.status)) fail(`${name}: ended ${s.status}, want ${want} (saw ${seen})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function main() {
  const tokens = await OneClickService.getTokens();
  for (const id of [ETH, SOL]) {
    if (!tokens.some((t) => t.assetId === id)) fail(`getTokens lists no ${id}`);
  }
  step('getTokens', { count: tokens.length });

  await quote('dry EXACT_INPUT quote');
  await quote('dry EXACT_OUTPUT quote', { swapType: 'EXACT_OUTPUT', amount: '250000000' });
  await quote('dry FLEX_INPUT quote with rebates', { swapType: 'FLEX_INPUT', rebates: [{ recipient: 'rebates.near', share: 100 }] });

  const full = await quote('non-dry EXACT_INPUT quote', { dry: false });
  const txHash = await deposit(full.quote.depositAddress, full.quote.amountIn);
  const submitted = await OneClickService.submitDepositTx({ txHash, depositAddress: full.quote.depositAddress });
  step('submitDepositTx', { status: submitted.status });
  await awaitStatus('full deposit to SUCCESS', full.quote.depositAddress, 'SUCCESS');

  const under = await quote('non-dry quote for an under-deposit', { dry: false });
  await deposit(under.quote.depositAddress, (BigInt(under.quote.amountIn) / 10n).toString());
  await awaitStatus('under-deposit to REFUNDED', under.quote.depositAddress, 'REFUNDED');

  const flex = await quote('non-dry FLEX_INPUT quote with rebates', {
    dry: false, swapType: 'FLEX_INPUT', slippageTolerance: 200,
    rebates: [{ recipient: 'a.near', share: 40 }, { recipient: 'b.near', share: 60 }],
  });
  await deposit(flex.quote.depositAddress, flex.quote.minAmountIn);
  await awaitStatus('FLEX_INPUT deposit of minAmountIn to SUCCESS', flex.quote.depositAddress, 'SUCCESS');

  for (const f of (process.env.HASH_FILES ?? '').split(',').filter(Boolean)) {
    report.hashes[f] = quoteHash(JSON.parse(readFileSync(f, 'utf8')));
  }
}

try {
  await main();
  console.log(JSON.stringify(report));
} catch (e) {
  const detail = e instanceof ApiError ? ` (HTTP ${e.status}: ${JSON.stringify(e.body)})` : '';
  console.log(JSON.stringify({ ...report, error: `${e.message}${detail}` }));
  process.exitCode = 1;
}
