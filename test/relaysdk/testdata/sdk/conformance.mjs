// Drives the provider simulator's relay module with Relay's official SDK through every call
// swaprouter's relay adapter makes: /chains (fetchChainConfigs), /currencies/v2, /quote/v2 with
// and without a strict deposit address (getQuote), /deposit-addresses/v1,
// /transactions/index and /intents/status/v3 until success and until refund (polled the way
// the SDK polls a step's check endpoint). Calls without an SDK action go through the SDK's own
// HTTP client. Run by test/relaysdk (go test), which starts the simulator and reads the report
// this prints as JSON on its last line.
//
// Environment: SIM_URL (the simulator).
import { axios, createClient, getClient, isAPIError, pollUntilOk } from '@relayprotocol/relay-sdk';
import { fetchChainConfigs } from '@relayprotocol/relay-sdk/chain-utils';

const { SIM_URL } = process.env;
const base = `${SIM_URL}/relay`;
createClient({ baseApiUrl: base, source: 'swaprouter-conformance' });

const report = { steps: [] };
const step = (name, detail = {}) => report.steps.push({ name, ...detail });
const fail = (msg) => { throw new Error(msg); };

const ETHEREUM = 1;
const ARBITRUM = 42161;
const SOLANA = 792703809;
const BITCOIN = 8253038;
const USDC_ETH = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const USDC_ARB = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const USER = '0x1111111111111111111111111111111111111111';
const RECIPIENT = '0x2222222222222222222222222222222222222222';
const FEES_TO = '0x3333333333333333333333333333333333333333';
const HUNDRED_USDC = '100000000';

// What the adapter sends (internal/provider/relay) for a deposit address.
const strictOptions = {
  useDepositAddress: true, strict: true, refundTo: USER, slippageTolerance: '100', ttl: 5400,
  appFees: [{ recipient: FEES_TO, fee: '25' }],
};

async function quote(name, tradeType, amount, options) {
  const q = await getClient().actions.getQuote({
    chainId: ETHEREUM, currency: USDC_ETH, toChainId: ARBITRUM, toCurrency: USDC_ARB,
    tradeType, amount, user: USER, recipient: RECIPIENT, options,
  });
  const deposit = q.steps?.find((s) => s.id === 'deposit');
  if (!deposit?.requestId) fail(`${name}: no deposit step with a requestId`);
  const { currencyIn, currencyOut } = q.details ?? {};
  if (!currencyIn?.amount || !currencyOut?.amount || !currencyOut?.minimumAmount) fail(`${name}: details without amounts`);
  if (BigInt(currencyOut.minimumAmount) > BigInt(currencyOut.amount)) fail(`${name}: minimum above the amount`);
  if (options?.useDepositAddress && !deposit.depositAddress) fail(`${name}: no depositAddress`);
  if (!options?.useDepositAddress && deposit.depositAddress) fail(`${name}: a depositAddress nobody asked for`);
  if (options?.appFees && !(BigInt(q.fees?.app?.amount ?? '0') > 0n)) fail(`${name}: the app fee is not charged`);
  const check = deposit.items?.[0]?.check;
  if (check?.method !== 'GET' || !check.endpoint?.includes(deposit.requestId)) fail(`${name}: no check endpoint for the request`);
  step(name, { tradeType, requestId: deposit.requestId, depositAddress: deposit.depositAddress ?? '',
    amountIn: currencyIn.amount, amountOut: currencyOut.amount, minimumAmount: currencyOut.minimumAmount });
  return { q, deposit };
}

// lookup is the deposit-address lookup: the address must be strict and bound to the request.
async function lookup(name, deposit) {
  const { data } = await axios.get(`${base}/deposit-addresses/v1`, { params: { address: deposit.depositAddress } });
  if (data.type !== 'strict' || data.requestId !== deposit.requestId || data.depositAddress !== deposit.depositAddress) {
    fail(`${name}: lookup ${JSON.stringify(data)} does not bind the address to its request`);
  }
  step(name, { type: data.type });
}

// transfer is the simulated user's transfer on the simulated chain (not a Relay call).
async function transfer(address, amount) {
  const r = await fetch(`${SIM_URL}/chain/deposits`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ depositAddress: address, amount }),
  });
  if (!r.ok) fail(`deposit to ${address}: ${r.status} ${await r.text()}`);
  return (await r.json()).txHash;
}

// awaitStatus polls the step's check endpoint with the SDK's pollUntilOk, on the v3 status
// as the SDK does, until want (the go test's deadline bounds the wait).
async function awaitStatus(name, deposit, want) {
  const seen = [];
  let last;
  const endpoint = deposit.items[0].check.endpoint.replace(/\/intents\/status(\/v\d)?/, '/intents/status/v3');
  await pollUntilOk({ url: `${base}${endpoint}`, method: 'GET' }, (res) => {
    last = res.data;
    if (seen.at(-1) !== last.status) seen.push(last.status);
    if (['success', 'refund', 'failure'].includes(last.status) && last.status !== want) {
      fail(`${name}: ended ${last.status}, want ${want} (saw ${seen})`);
    }
    return last.status === want;
  }, Number.MAX_SAFE_INTEGER, 0, 25);
  if (!last.inTxHashes?.length || !last.txHashes?.length || last.originChainId !== ETHEREUM || last.destinationChainId !== ARBITRUM) {
    fail(`${name}: ${JSON.stringify(last)} lacks the transactions or the chains`);
  }
  step(name, { statuses: seen, inTxHashes: last.inTxHashes, txHashes: last.txHashes });
}

async function main() {
  const chains = await fetchChainConfigs(base, getClient().source);
  for (const id of [ETHEREUM, ARBITRUM, SOLANA, BITCOIN]) {
    if (!chains.some((c) => c.id === id && c.viemChain)) fail(`fetchChainConfigs lists no chain ${id}`);
  }
  const eth = chains.find((c) => c.id === ETHEREUM);
  if (!eth.solverCurrencies?.some((c) => c.address === USDC_ETH)) fail('Ethereum takes no USDC at deposit addresses');
  step('chains', { count: chains.length });

  const { data: currencies } = await axios.post(`${base}/currencies/v2`,
    { chainIds: [ETHEREUM, ARBITRUM], depositAddressOnly: true, verified: true, limit: 100 });
  if (!currencies.some((c) => c.chainId === ARBITRUM && c.address === USDC_ARB && c.decimals === 6)) fail('currencies/v2 lists no Arbitrum USDC');
  if (!currencies.some((c) => c.chainId === ETHEREUM && c.metadata?.isNative)) fail('currencies/v2 lists no native Ether');
  step('currencies', { count: currencies.length });

  await quote('quote without a deposit address', 'EXACT_INPUT', HUNDRED_USDC, { slippageTolerance: '100' });
  const exactOut = await quote('strict EXACT_OUTPUT quote', 'EXACT_OUTPUT', '90000000', strictOptions);
  await lookup('deposit-address lookup of the EXACT_OUTPUT address', exactOut.deposit);

  const full = await quote('strict EXACT_INPUT quote', 'EXACT_INPUT', HUNDRED_USDC, strictOptions);
  await lookup('deposit-address lookup', full.deposit);
  const txHash = await transfer(full.deposit.depositAddress, full.q.details.currencyIn.amount);
  const { data: indexed } = await axios.post(`${base}/transactions/index`,
    { chainId: String(ETHEREUM), txHash, requestId: full.deposit.requestId });
  step('transactions/index', { message: indexed.message });
  await awaitStatus('full deposit to success', full.deposit, 'success');

  const under = await quote('strict quote for an under-deposit', 'EXACT_INPUT', HUNDRED_USDC, strictOptions);
  await transfer(under.deposit.depositAddress, (BigInt(under.q.details.currencyIn.amount) / 10n).toString());
  await awaitStatus('under-deposit to refund', under.deposit, 'refund');

  try {
    await quote('quote below the minimum', 'EXACT_INPUT', '1000', strictOptions);
    fail('a quote below the minimum was answered');
  } catch (e) {
    if (!isAPIError(e) || e.rawError?.errorCode !== 'AMOUNT_TOO_LOW') throw e;
    step('quote below the minimum refused', { errorCode: e.rawError.errorCode, message: e.message });
  }
}

try {
  await main();
  console.log(JSON.stringify(report));
} catch (e) {
  const detail = isAPIError(e) ? ` (${JSON.stringify(e.rawError)})` : '';
  console.log(JSON.stringify({ ...report, error: `${e.message ?? e}${detail}` }));
  process.exitCode = 1;
}
