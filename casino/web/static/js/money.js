// Money is integer minor units everywhere; only what is shown is converted, in the player's
// language's way ("1.234,50 €" in Greek, "€ 1.234,50" in Dutch) and the table's currency.

import { locale } from "./i18n.js";

const cache = new Map();

function formatterFor(currency) {
  const id = `${locale()} ${currency}`;
  if (!cache.has(id)) {
    let format;
    try {
      format = new Intl.NumberFormat(locale(), { style: "currency", currency });
    } catch {
      format = new Intl.NumberFormat(locale(), { minimumFractionDigits: 2 });
    }
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    cache.set(id, { format, scale: 10 ** digits });
  }
  return cache.get(id);
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
