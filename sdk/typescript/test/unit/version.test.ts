import { strictEqual } from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

test("the package is versioned with the API document its types are generated from", () => {
  const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as { version?: string; info?: { version: string } };
  // Compiled to build/test/unit: the package and the repository are three and five folders up.
  strictEqual(read("../../../package.json").version, read("../../../../../apiserver/openapi.json").info?.version);
});
