/**
 * Preloaded into a server by `cli_test.ts` (`deno run --preload`, `node --import`): every way into the
 * runtime's locale data (`Intl`, and the `toLocale…` and `localeCompare` methods built on it) still works,
 * but writes `locale data used: <what>` on stderr. The first use loads that data: 16–25 ms, which a server
 * that needs none should not add to its start-up. Says `locale guard loaded` first, so a test knows it ran.
 *
 * @module
 */
import process from "node:process";

const used = (what: string) => process.stderr.write(`locale data used: ${what}\n`);

/** Replaces `owner[name]` with a function that reports its use, then does what it did. */
function watch(owner: object, name: string, what: string): void {
  const original = Reflect.get(owner, name);
  if (typeof original !== "function") return;
  Object.defineProperty(owner, name, {
    configurable: true,
    writable: true,
    value: new Proxy(original, {
      apply(target, self, args) {
        used(what);
        return Reflect.apply(target, self, args);
      },
      construct(target, args, newTarget) {
        used(what);
        return Reflect.construct(target, args, newTarget);
      },
    }),
  });
}

for (
  const [owner, names] of [
    [Number.prototype, ["toLocaleString"]],
    [BigInt.prototype, ["toLocaleString"]],
    [Array.prototype, ["toLocaleString"]],
    [Date.prototype, ["toLocaleString", "toLocaleDateString", "toLocaleTimeString"]],
    [String.prototype, ["localeCompare", "toLocaleLowerCase", "toLocaleUpperCase"]],
  ] as const
) {
  const type = (owner.constructor as { name: string }).name;
  for (const name of names) watch(owner, name, `${type}#${name}`);
}
for (const name of Object.getOwnPropertyNames(Intl)) watch(Intl, name, `Intl.${name}`);

process.stderr.write("locale guard loaded\n");
