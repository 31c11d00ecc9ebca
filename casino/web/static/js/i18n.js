// The player's language, for both pages: which one, its messages, and its ways of writing
// numbers, money and times.
//
// The language is, the first that applies: `?lang=` in the address (the casino's launch puts
// it there), the player's own choice on this device (the switcher, kept in localStorage), the
// browser's languages (navigator.languages), English. Its messages come from
// /play/assets/i18n/<lang>.json, compiled from casino/i18n/po/<lang>.po
// (python -m casino.i18n); the code names messages by key, never by sentence.

export const LANGUAGES = ["en", "pt", "nl", "ca", "it", "el"];
const DEFAULT = "en";
const STORE_KEY = "casino.language";
// Each language's name in itself, for the switcher (names, not messages: never translated).
const AUTONYMS = {
  en: "English",
  pt: "Português",
  nl: "Nederlands",
  ca: "Català",
  it: "Italiano",
  el: "Ελληνικά",
};

let current = { language: DEFAULT, locale: "en-GB", messages: {} };
let plurals = new Intl.PluralRules("en-GB");
const numberFormats = new Map();

function known(tag) {
  const language = String(tag || "").toLowerCase().split("-")[0];
  return LANGUAGES.includes(language) ? language : null;
}

function stored() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null; // storage refused (private mode, policy): the choice lasts the page only
  }
}

function browserLanguages() {
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

export function chooseLanguage() {
  const asked = known(new URLSearchParams(location.search).get("lang"));
  if (asked) return asked;
  const chosen = known(stored());
  if (chosen) return chosen;
  for (const tag of browserLanguages()) {
    const language = known(tag);
    if (language) return language;
  }
  return DEFAULT;
}

// The browser's own region for the language when it names one (en-US, pt-BR), else the
// catalogue's (en-GB, pt-PT, el-GR...).
function localeFor(language, fallback) {
  const regional = browserLanguages().find(
    (tag) => known(tag) === language && String(tag).includes("-"),
  );
  try {
    return regional ? Intl.getCanonicalLocales(regional)[0] : fallback;
  } catch {
    return fallback;
  }
}

export async function loadLanguage(language) {
  const response = await fetch(`/play/assets/i18n/${language}.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`catalogue ${language}: HTTP ${response.status}`);
  const catalogue = await response.json();
  current = {
    language,
    locale: localeFor(language, catalogue.locale),
    messages: catalogue.messages,
  };
  plurals = new Intl.PluralRules(current.locale);
  numberFormats.clear();
  document.documentElement.lang = language;
  return current;
}

export function language() {
  return current.language;
}

export function locale() {
  return current.locale;
}

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

// The message `key`, its {placeholders} filled from `values`. A message missing from the
// catalogue shows its key (tests/unit/i18n forbids it).
export function t(key, values = {}) {
  const message = current.messages[key];
  const text = Array.isArray(message) ? message[0] : message;
  return typeof text === "string" ? fill(text, values) : key;
}

// A plural message for `count` things: {n} is the count, written the language's way.
export function tn(key, count, values = {}) {
  const forms = current.messages[key];
  if (!Array.isArray(forms)) return typeof forms === "string" ? fill(forms, values) : key;
  const form = plurals.select(count) === "one" ? forms[0] : forms[forms.length - 1];
  return fill(form, { n: number(count), ...values });
}

// Marks a key kept in a table for later (the catalogue tests find keys through t, tn, N_).
export const N_ = (key) => key;

export function has(key) {
  return Object.hasOwn(current.messages, key);
}

export function number(value, options = {}) {
  const id = JSON.stringify(options);
  if (!numberFormats.has(id)) numberFormats.set(id, new Intl.NumberFormat(current.locale, options));
  return numberFormats.get(id).format(value);
}

// "A, B and C" / "A, B or C" the language's way (type: "conjunction" or "disjunction").
export function list(items, type = "conjunction") {
  return new Intl.ListFormat(current.locale, { style: "long", type }).format(items);
}

export function timeText(iso, { seconds = true } = {}) {
  const options = { hour: "numeric", minute: "2-digit" };
  if (seconds) options.second = "2-digit";
  return new Date(iso).toLocaleTimeString(current.locale, options);
}

export function dateTimeText(iso) {
  return new Date(iso).toLocaleString(current.locale, { dateStyle: "medium", timeStyle: "short" });
}

export function dateText(date, options) {
  return date.toLocaleDateString(current.locale, options);
}

// Texts of the page itself: data-i18n="key" (the text), data-i18n-<attribute>="key".
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("*")) {
    for (const { name, value } of [...node.attributes]) {
      if (name === "data-i18n") node.textContent = t(value);
      else if (name.startsWith("data-i18n-")) node.setAttribute(name.slice(10), t(value));
    }
  }
}

// The switcher: a <select> of the languages, each in its own name. `onChange` re-draws the
// page in the new language; the choice is kept on this device and in the address.
export function wireSwitcher(select, onChange) {
  select.replaceChildren(
    ...LANGUAGES.map((code) => {
      const option = document.createElement("option");
      option.value = code;
      option.lang = code;
      option.textContent = AUTONYMS[code];
      return option;
    }),
  );
  select.value = current.language;
  select.addEventListener("change", async () => {
    const chosen = known(select.value) || DEFAULT;
    try {
      localStorage.setItem(STORE_KEY, chosen);
    } catch {
      // not kept: the address still carries it
    }
    const url = new URL(location.href);
    url.searchParams.set("lang", chosen);
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
    await loadLanguage(chosen);
    translatePage();
    onChange(chosen);
  });
}
