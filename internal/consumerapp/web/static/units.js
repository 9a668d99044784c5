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
