import { expect, test } from "bun:test";
import { fitsAspectRatio, parsePixels, pixelsFor, resolutionOf } from "./image-size.ts";

test("a tier is the shorter side; the longer follows the aspect ratio, in multiples of 16", () => {
  expect(pixelsFor("1K", "3:2")).toEqual({ width: 1536, height: 1024 });
  expect(pixelsFor("1K", "2:3")).toEqual({ width: 1024, height: 1536 });
  expect(pixelsFor("2K", "16:9")).toEqual({ width: 3648, height: 2048 });
  expect(pixelsFor("512", "9:16")).toEqual({ width: 512, height: 912 });
  expect(pixelsFor(undefined, undefined)).toEqual({ width: 1024, height: 1024 });
  expect(pixelsFor("4K", "auto")).toEqual({ width: 4096, height: 4096 });
});

test("a pixel size's tier is the nearest one to its shorter side", () => {
  expect(resolutionOf({ width: 700, height: 4000 })).toBe("512");
  expect(resolutionOf({ width: 1792, height: 1024 })).toBe("1K");
  expect(resolutionOf({ width: 800, height: 800 })).toBe("1K");
  expect(resolutionOf({ width: 3000, height: 3000 })).toBe("4K");
});

test("aspect ratios match within rounding; auto matches anything; tiers are not pixels", () => {
  expect(fitsAspectRatio({ width: 1792, height: 1024 }, "16:9")).toBe(true);
  expect(fitsAspectRatio({ width: 1024, height: 1024 }, "4:3")).toBe(false);
  expect(fitsAspectRatio({ width: 10, height: 999 }, "auto")).toBe(true);
  expect(parsePixels("1024x768")).toEqual({ width: 1024, height: 768 });
  expect(parsePixels("1K")).toBeUndefined();
});
