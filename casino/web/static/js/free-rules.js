// Each variant's rules and options in the player's language: the setup's fields (labels,
// values, a line of help each) and the rules panel (how to play, every option explained).
// The words are the catalogues' (variant.<name>.*, option.<name>.*), never the engine's.

import { h, replace, show } from "./dom.js";
import { number, t } from "./i18n.js";
import { el, state } from "./free-state.js";

export function currentVariant() {
  return state.variants.find((v) => v.name === el.variant.value);
}

// An option's value in words: numbers as numbers, the rest named per option
// ("option.return_order.shuffled", "option.battle_limit.none", "option.protect_own_pile.yes").
export function valueText(name, value) {
  if (typeof value === "number") return number(value);
  const word = value === null ? "none" : value === true ? "yes" : value === false ? "no" : String(value);
  return t(`option.${name}.${word}`);
}

// The setup's fields for `variant`, keeping the values chosen so far.
export function renderOptions() {
  const variant = currentVariant();
  if (!variant) return;
  const chosen = {};
  for (const select of el.options.querySelectorAll("select")) chosen[select.name] = select.value;
  el.variantBlurb.textContent = t(`variant.${variant.name}.summary`);
  const fields = Object.entries(variant.options).map(([name, option]) => {
    const id = `option-${name}`;
    const select = h(
      "select",
      { id, name, "aria-describedby": `${id}-help` },
      option.allowed.map((value, i) =>
        h("option", { value: String(i), selected: value === option.default }, valueText(name, value)),
      ),
    );
    if (chosen[name] !== undefined && chosen[name] < option.allowed.length) select.value = chosen[name];
    return h(
      "div",
      { class: "field" },
      h("label", { for: id }, t(`option.${name}.label`)),
      select,
      // Read out with the field; shown below the fields for the one in focus.
      h("span", { class: "sr-only", id: `${id}-help` }, t(`option.${name}.help`)),
    );
  });
  const legend = el.options.querySelector("legend");
  replace(el.options, legend, fields);
  show(el.options, fields.length > 0);
  el.optionHint.textContent = fields.length ? t("free.options_hint") : t("free.no_options");
  renderRules(variant);
}

export function chosenOptions() {
  const variant = currentVariant();
  const options = {};
  for (const [name, option] of Object.entries(variant.options)) {
    const select = document.getElementById(`option-${name}`);
    const value = option.allowed[Number(select.value)];
    if (value !== option.default) options[name] = value;
  }
  return options;
}

function renderRules(variant) {
  const paragraphs = t(`variant.${variant.name}.rules`).split("\n").filter((line) => line.trim());
  const options = Object.entries(variant.options).map(([name, option]) => [
    h("dt", {}, t(`option.${name}.label`)),
    h("dd", {},
      t(`option.${name}.help`), " ",
      h("span", { class: "option-values" },
        t("rules.values", {
          values: option.allowed.map((value) => valueText(name, value)).join(" · "),
          default: valueText(name, option.default),
        }))),
  ]);
  replace(
    el.rules,
    h("h2", { id: "rules-title" }, t("rules.title", { variant: t(`variant.${variant.name}.title`) })),
    h("div", { class: "rules-text" }, paragraphs.map((text) => h("p", {}, text))),
    h("h3", { class: "hand-label" }, t("rules.options")),
    options.length
      ? h("dl", { class: "rules-options" }, options)
      : h("p", { class: "hint" }, t("rules.no_options")),
  );
}
