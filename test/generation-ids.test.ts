import { expect, test } from "bun:test";
import { newGenerationId } from "../src/core/ids.ts";

test("generation ids: gen-<seconds>-<20 characters>, unique, ascending with time, random after the millisecond", async () => {
  const first = Array.from({ length: 2000 }, newGenerationId);
  await Bun.sleep(5);
  const later = newGenerationId();
  for (const id of [...first, later]) expect(id).toMatch(/^gen-\d{10}-[0-9A-Za-z]{2}[A-Za-z0-9_-]{18}$/);
  expect(new Set(first).size).toBe(first.length);
  // Made later, sorts later: the primary-key index grows at its end.
  for (const id of first) expect(id < later).toBe(true);
  const seconds = Number(later.split("-")[1]);
  expect(Math.abs(seconds - Date.now() / 1000)).toBeLessThan(2);
  // Ids of the same millisecond share only the time prefix.
  const tails = first.map((id) => id.slice(-18));
  expect(new Set(tails).size).toBe(tails.length);
});
