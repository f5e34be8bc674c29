/**
 * Invoice arithmetic, exact: money is integer minor units, `qty` and `tax_rate` are decimals.
 *
 *   line net   = round(qty × unit_price_minor)
 *   line tax   = round(net × tax_rate / 100)          (tax_rate 19 means 19 %)
 *   subtotal   = Σ net,  tax = Σ line tax,  total = subtotal + tax
 *
 * `round` is half away from zero. A JSON number is taken as the shortest decimal that reads back
 * as its double (so 1.005 is 1.005 and not the nearest binary fraction; up to 15 significant
 * digits, exactly the decimal written, while longer ones were rounded by the parse) and all
 * arithmetic is in BigInt, so no step loses precision and none can overflow. Every amount must
 * stay within MAX_MINOR, the largest integer a JSON number carries exactly.
 */
export const MAX_MINOR = Number.MAX_SAFE_INTEGER;
export const MAX_QTY = 1_000_000_000;
export const MAX_TAX_RATE = 100;

const MAX_MINOR_BIG = BigInt(MAX_MINOR);

/** units / 10^scale */
export interface Decimal {
  units: bigint;
  scale: number;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

/** Parses plain or exponent notation ("19", "7.50", "1e-7"); null when it is not a decimal. */
export function parseDecimal(text: string): Decimal | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  let units = BigInt(`${sign}${whole}${fraction}`);
  if (scale >= 0) return { units, scale };
  units *= 10n ** BigInt(-scale);
  return { units, scale: 0 };
}

/** The shortest decimal that reads back as `value`: the one written, for up to 15 significant digits. */
export function decimalOf(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return parseDecimal(String(value))!;
}

/** Plain notation without trailing zeros, as stored in a `numeric` column ("1.5", "0.0000001"). */
export function formatDecimal({ units, scale }: Decimal): string {
  const negative = units < 0n;
  let digits = (negative ? -units : units).toString();
  let s = scale;
  while (s > 0 && digits.endsWith('0') && digits.length > 1) {
    digits = digits.slice(0, -1);
    s -= 1;
  }
  if (digits === '0') return '0';
  if (s > 0) {
    digits = digits.padStart(s + 1, '0');
    digits = `${digits.slice(0, -s)}.${digits.slice(-s)}`;
  }
  return negative ? `-${digits}` : digits;
}

export function decimalEquals(a: Decimal, b: Decimal): boolean {
  return a.units * 10n ** BigInt(b.scale) === b.units * 10n ** BigInt(a.scale);
}

/** numerator / denominator rounded half away from zero; denominator > 0. */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  if (twice < denominator) return quotient;
  return numerator < 0n ? quotient - 1n : quotient + 1n;
}

export interface LineAmounts {
  netMinor: bigint;
  taxMinor: bigint;
}

export function lineNet(qty: Decimal, unitPriceMinor: bigint): bigint {
  return divideRounded(qty.units * unitPriceMinor, 10n ** BigInt(qty.scale));
}

function lineTax(netMinor: bigint, taxRate: Decimal): bigint {
  return divideRounded(netMinor * taxRate.units, 100n * 10n ** BigInt(taxRate.scale));
}

export function lineAmounts(qty: Decimal, unitPriceMinor: bigint, taxRate: Decimal): LineAmounts {
  const netMinor = lineNet(qty, unitPriceMinor);
  return { netMinor, taxMinor: lineTax(netMinor, taxRate) };
}

export interface InvoiceTotals {
  subtotalMinor: bigint;
  taxMinor: bigint;
  totalMinor: bigint;
}

export function invoiceTotals(lines: readonly LineAmounts[]): InvoiceTotals {
  let subtotalMinor = 0n;
  let taxMinor = 0n;
  for (const line of lines) {
    subtotalMinor += line.netMinor;
    taxMinor += line.taxMinor;
  }
  return { subtotalMinor, taxMinor, totalMinor: subtotalMinor + taxMinor };
}

/** Whether an amount can be stored and shown exactly. */
export function withinMaxMinor(amount: bigint): boolean {
  return amount >= 0n && amount <= MAX_MINOR_BIG;
}
