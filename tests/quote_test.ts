import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_ECHO_BYTES, quoteArgument, refuseArgument } from "../src/quote.ts";
import { ToolError } from "../src/errors.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

test("quoteArgument gives a short argument as its JSON string", () => {
  assert.equal(quoteArgument("../package.json"), '"../package.json"');
  assert.equal(quoteArgument(""), '""');
  assert.equal(quoteArgument('say "hi" \\ there'), '"say \\"hi\\" \\\\ there"');
  assert.equal(quoteArgument("é€😀"), '"é€😀"');
});

test("quoteArgument escapes every control character, line separators and lone surrogates", () => {
  assert.equal(quoteArgument("a\nb\r\tc\0d"), '"a\\nb\\r\\tc\\u0000d"');
  assert.equal(quoteArgument("\x7f\x85\x9f\u2028\u2029"), '"\\u007f\\u0085\\u009f\\u2028\\u2029"');
  assert.equal(quoteArgument("x\ud800y"), '"x\\ud800y"');
  for (let c = 0; c < 0xa0; c++) {
    const quoted = quoteArgument(String.fromCharCode(c));
    if (c < 0x20 || c >= 0x7f) assert.match(quoted, /^"\\/, `U+${c.toString(16)}`);
    assert.equal(JSON.parse(quoted), String.fromCharCode(c), "it stays a JSON string of the argument");
  }
});

test("quoteArgument cuts at 256 bytes on a character boundary, never inside an escape, and marks the cut", () => {
  const exact = "x".repeat(MAX_ECHO_BYTES);
  assert.equal(quoteArgument(exact), `"${exact}"`, "256 bytes are not cut");
  assert.equal(quoteArgument(exact + "y"), `"${exact}"…`);
  // 3-byte characters: 85 fit (255 bytes); the 86th would pass 256.
  assert.equal(quoteArgument("€".repeat(100)), `"${"€".repeat(85)}"…`);
  // 4-byte characters: 64 fit exactly.
  assert.equal(quoteArgument("😀".repeat(65)), `"${"😀".repeat(64)}"…`);
  // An escape is 2 or 6 bytes; it is kept whole or left out.
  assert.equal(quoteArgument("x".repeat(255) + "\n"), `"${"x".repeat(255)}"…`);
  assert.equal(quoteArgument("x".repeat(250) + "\0"), `"${"x".repeat(250)}\\u0000"`);
  assert.equal(quoteArgument("x".repeat(251) + "\0"), `"${"x".repeat(251)}"…`);
  const huge = quoteArgument("\n".repeat(10_000_000));
  assert.equal(huge, `"${"\\n".repeat(128)}"…`);
  for (const value of ["a".repeat(1000), "é".repeat(1000), "\u0001".repeat(1000), "😀x".repeat(300)]) {
    const quoted = quoteArgument(value);
    assert.ok(bytes(quoted.slice(1, quoted.lastIndexOf('"'))) <= MAX_ECHO_BYTES, value.slice(0, 3));
    assert.ok(value.startsWith(JSON.parse(quoted.slice(0, quoted.lastIndexOf('"') + 1))), "a prefix");
  }
});

test("refuseArgument makes a ToolError: the rule, then the argument", () => {
  const error = refuseArgument("query must be one line", "a\nb");
  assert.ok(error instanceof ToolError);
  assert.equal(error.message, 'query must be one line: "a\\nb"');
});
