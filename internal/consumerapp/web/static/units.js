// Amounts: the API speaks integers in an asset's smallest unit, people speak decimals. Both
// directions are exact for any size (BigInt), never through floating point.

// toBaseUnits("1.5", 18) === "1500000000000000000". Throws an Error whose message tells the
// user what to fix.
export function toBaseUnits(text, decimals) {
  const s = String(text).trim();
  if (s === '' || s === '.') throw new Error('Enter an amount, like 0.5.');
  if (!/^[0-9]*\.?[0-9]*$/.test(s)) throw new Error('Use digits and one dot, like 0.5.');
  const [whole, frac = ''] = s.split('.');
  if (frac.length > decimals) {
    throw new Error(decimals === 0 ? 'This asset has no decimal places.' : `This asset has at most ${decimals} decimal places.`);
  }
  const scale = 10n ** BigInt(decimals);
  const base = BigInt(whole || '0') * scale + BigInt(frac.padEnd(decimals, '0') || '0');
  if (base === 0n) throw new Error('Enter an amount above zero.');
  return base.toString();
}

// fromBaseUnits("1500000000000000000", 18) === "1.5". maxFraction, when given, cuts (never
// rounds up) the decimals shown, so a display never promises more than the amount.
export function fromBaseUnits(amount, decimals, maxFraction) {
  const n = BigInt(amount);
  const scale = 10n ** BigInt(decimals);
  const whole = n / scale;
  let frac = decimals > 0 ? (n % scale).toString().padStart(decimals, '0') : '';
  if (maxFraction !== undefined) frac = frac.slice(0, maxFraction);
  frac = frac.replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}

// significant shows a base-unit amount to `digits` significant digits, exactly (no floating
// point): 'down' (the default) never shows more than the amount, 'up' never less (a minimum
// a user enters must be enough). Whole numbers keep all their digits.
export function significant(amount, decimals, digits = 4, direction = 'down') {
  const full = fromBaseUnits(amount, decimals);
  const [whole, frac = ''] = full.split('.');
  if (BigInt(amount) === 0n) return full;
  // Decimals kept: past the leading zeros of a fraction, or fewer as the whole part grows.
  const keep = whole === '0' ? frac.search(/[1-9]/) + digits : Math.max(0, digits - whole.length);
  if (frac.length <= keep) return full;
  const scale = 10n ** BigInt(decimals - keep);
  let n = BigInt(amount) / scale;
  if (direction === 'up' && BigInt(amount) % scale !== 0n) n += 1n;
  return fromBaseUnits((n * scale).toString(), decimals);
}

// usdValue is a base-unit amount's value in dollars at priceUsd per whole unit, as a number
// for display (null when the price is unknown).
export function usdValue(amount, decimals, priceUsd) {
  if (!priceUsd || amount == null) return null;
  return Number(fromBaseUnits(amount, decimals)) * priceUsd;
}

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

// usdText reads "$1,234.56", "<$0.01" for dust, '' for an unknown value.
export function usdText(value) {
  if (value == null || Number.isNaN(value)) return '';
  if (value > 0 && value < 0.01) return '<$0.01';
  return dollars.format(value);
}
