// A message with a {seconds} placeholder counted down in an element, once a second (the
// table page's and the live page's "waiting" line).
import { show } from "./dom.js";
import { t } from "./i18n.js";

const timers = new WeakMap();

// why: {key, values} of the message; null hides the element and stops the count.
export function countDown(element, why, seconds) {
  clearInterval(timers.get(element));
  if (!why) {
    show(element, false);
    return;
  }
  let left = Math.ceil(seconds);
  const render = () => {
    element.textContent = t(why.key, { ...why.values, seconds: Math.max(0, left) });
  };
  render();
  show(element, true);
  timers.set(element, setInterval(() => {
    left -= 1;
    render();
  }, 1000));
}
