// Money is integer minor units everywhere; only what is shown is converted.

const cache = new Map();

function formatterFor(currency) {
  if (!cache.has(currency)) {
    let format;
    try {
      format = new Intl.NumberFormat(undefined, { style: "currency", currency });
    } catch {
      format = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2 });
    }
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    cache.set(currency, { format, scale: 10 ** digits });
  }
  return cache.get(currency);
}

export function money(minor, currency) {
  const { format, scale } = formatterFor(currency);
  return format.format(Number(minor) / scale);
}

export function signedMoney(minor, currency) {
  if (minor > 0) return `+${money(minor, currency)}`;
  if (minor < 0) return `−${money(-minor, currency)}`;
  return money(0, currency);
}

export function minorPerUnit(currency) {
  return formatterFor(currency).scale;
}
