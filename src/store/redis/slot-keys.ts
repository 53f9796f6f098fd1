// Redis Cluster places a key by its hash tag: the text between the first '{' and the first '}'
// after it, when that text is not empty; otherwise by the whole key. A script may only touch keys of
// one slot, so every key a script derives from the key it was given shares that key's slot.

/** The part of `key` that decides its cluster slot: its hash tag, or the whole key when it has none. */
export function slotPart(key: string): string {
  const open = key.indexOf('{')
  if (open === -1) return key
  const close = key.indexOf('}', open + 1)
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close)
}

/**
 * A key beside `key` in the same cluster slot: `key + suffix` when `key` has a hash tag,
 * `{key}suffix` when it has none (so an untagged key keeps its name, and a single server's data
 * stays where it was). A key with a stray `}` and no tag cannot be tagged: its companion is
 * `key + suffix`, which is fine on a single server; on a cluster such a script fails with `CROSSSLOT`.
 */
export function besideKey(key: string, suffix: string): string {
  if (slotPart(key) !== key || key.includes('}')) return key + suffix
  return `{${key}}${suffix}`
}

/**
 * The key of the epoch that guards `key` and every key of its group, in its slot: a key with a hash
 * tag belongs to the group of its text up to the tag's end (`billing:{rate:llm}:123` ->
 * `billing:{rate:llm}:rg-epoch`, one epoch for every window), an untagged key is a group of its own.
 */
export function epochKey(key: string): string {
  if (slotPart(key) === key) return besideKey(key, ':rg-epoch')
  return `${key.slice(0, key.indexOf('}', key.indexOf('{') + 1) + 1)}:rg-epoch`
}
