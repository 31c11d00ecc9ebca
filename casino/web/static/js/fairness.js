// Provably fair dealing re-derived in the browser with WebCrypto, exactly as docs/fairness.md
// specifies: block i = HMAC-SHA256(server seed, "<client seed>:<nonce>:<i>"), read as 4-byte
// big-endian draws; uniform(n) rejects draws >= 2^32 - (2^32 mod n); a Fisher-Yates from the
// front over `decks` packs in canonical order deals the cards.

const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const PACK = [..."CDHS"].flatMap((suit) => RANKS.map((rank) => rank + suit));
const TWO_32 = 2 ** 32;
const encoder = new TextEncoder();

export function available() {
  return Boolean(globalThis.crypto?.subtle);
}

export function hexToBytes(hex) {
  if (typeof hex !== "string" || !/^([0-9a-fA-F]{2})*$/.test(hex)) {
    throw new Error("not a hex string");
  }
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function toHex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(bytes) {
  return toHex(await crypto.subtle.digest("SHA-256", bytes));
}

// The draws of one (server seed, client seed, nonce), generated a block at a time.
class Draws {
  constructor(key, clientSeed, nonce) {
    this.key = key;
    this.prefix = `${clientSeed}:${nonce}:`;
    this.block = 0;
    this.view = null;
    this.offset = 32;
  }

  async next() {
    if (this.offset >= 32) {
      const message = encoder.encode(this.prefix + String(this.block));
      this.view = new DataView(await crypto.subtle.sign("HMAC", this.key, message));
      this.block += 1;
      this.offset = 0;
    }
    const value = this.view.getUint32(this.offset, false);
    this.offset += 4;
    return value;
  }

  async uniform(n) {
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      const x = await this.next();
      if (x < limit) return x % n;
    }
  }
}

export async function deal(serverSeedHex, clientSeed, nonce, decks = 6, count = 7) {
  const seed = hexToBytes(serverSeedHex);
  if (seed.length !== 32) throw new Error("a server seed is 32 bytes (64 hex digits)");
  const key = await crypto.subtle.importKey(
    "raw",
    seed,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const shoe = [];
  for (let d = 0; d < decks; d += 1) shoe.push(...PACK);
  const draws = new Draws(key, clientSeed, String(nonce));
  for (let i = 0; i < count; i += 1) {
    const j = i + (await draws.uniform(shoe.length - i));
    [shoe[i], shoe[j]] = [shoe[j], shoe[i]];
  }
  return shoe.slice(0, count);
}

// The round's cards in the order they were dealt (docs/fairness.md sections 6 and 13):
// classic, the player's card then the dealer's; table, the dealer's then one per hand; then
// each war: three burns, a card to each hand at war in hand order, one dealer card.
export function shownCards(round) {
  const shown =
    round.dealing === "table"
      ? [round.dealer_card, ...round.hands.map((hand) => hand.card)]
      : [round.player_card, round.dealer_card];
  const wars = round.wars ?? (round.war
    ? [{ burns: round.war.burns, cards: [{ card: round.war.player_card }], dealer_card: round.war.dealer_card }]
    : []);
  for (const war of wars) shown.push(...war.burns, ...war.cards.map((c) => c.card), war.dealer_card);
  return shown;
}

// Check a recalled round whose server seed has been revealed: the seed matches the
// commitment, and dealing it again gives the cards the round shows.
export async function verifyRound(round) {
  const fairness = round.fairness;
  if (!fairness?.server_seed) throw new Error("the server seed of this round is not revealed yet");
  const commitment = await sha256Hex(hexToBytes(fairness.server_seed));
  const decks = round.rules?.decks ?? 6;
  const shown = shownCards(round);
  const cards = await deal(fairness.server_seed, fairness.client_seed, fairness.nonce, decks, Math.max(7, shown.length));
  const mismatches = shown
    .map((card, i) => ({ position: i + 1, shown: card, dealt: cards[i] }))
    .filter((entry) => entry.shown !== entry.dealt);
  const commitmentOk = commitment === fairness.server_seed_hash;
  return {
    ok: commitmentOk && mismatches.length === 0,
    commitmentOk,
    commitment,
    cards,
    shown,
    mismatches,
  };
}
