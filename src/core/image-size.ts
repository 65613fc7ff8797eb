/**
 * What the size fields of an image request mean, in one place: the images codec refuses a request
 * whose explicit pixels contradict its resolution or aspect ratio, and an adapter whose upstream takes
 * only pixels turns a resolution and an aspect ratio into them. A tier names the shorter side.
 */

/** The resolution tiers a request may name (`resolution`, or a tier as `size`). */
export const IMAGE_RESOLUTIONS = ["512", "1K", "2K", "4K"] as const;
export type ImageResolution = (typeof IMAGE_RESOLUTIONS)[number];

/** The aspect ratios a request may name (`auto` leaves the shape to the provider). */
export const IMAGE_ASPECT_RATIOS = [
  "1:1", "1:2", "1:4", "1:8", "2:1", "2:3", "3:2", "3:4", "4:1", "4:3", "4:5", "5:4", "8:1",
  "9:16", "16:9", "9:19.5", "19.5:9", "9:20", "20:9", "9:21", "21:9", "auto",
] as const;

/** Pixels of the shorter side of each tier. */
const SHORTER_SIDE: Record<ImageResolution, number> = { "512": 512, "1K": 1024, "2K": 2048, "4K": 4096 };

/** A width/height ratio counts as an aspect ratio within this much (pixel sizes are rounded). */
const RATIO_TOLERANCE = 0.05;

/** Providers take sides in multiples of this. */
const SIDE_STEP = 16;

export interface Pixels {
  width: number;
  height: number;
}

export function isImageResolution(value: string): value is ImageResolution {
  return (IMAGE_RESOLUTIONS as readonly string[]).includes(value);
}

/** `1024x768` → its pixels; anything else (a tier) → undefined. */
export function parsePixels(size: string): Pixels | undefined {
  const match = /^(\d+)x(\d+)$/.exec(size);
  if (!match) return undefined;
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** `16:9` → 16/9; `auto` → undefined. */
export function aspectRatioValue(ratio: string): number | undefined {
  const [width, height] = ratio.split(":").map(Number);
  return width && height ? width / height : undefined;
}

/** The tier nearest a pixel size's shorter side (on a log scale: 700 px is `512`, 800 px `1K`). */
export function resolutionOf(pixels: Pixels): ImageResolution {
  const shorter = Math.min(pixels.width, pixels.height);
  let best: ImageResolution = "512";
  for (const tier of IMAGE_RESOLUTIONS) {
    if (Math.abs(Math.log(shorter / SHORTER_SIDE[tier])) < Math.abs(Math.log(shorter / SHORTER_SIDE[best]))) best = tier;
  }
  return best;
}

/** Whether a pixel size has an aspect ratio (`auto` fits any). */
export function fitsAspectRatio(pixels: Pixels, ratio: string): boolean {
  const wanted = aspectRatioValue(ratio);
  return wanted === undefined || Math.abs(pixels.width / pixels.height / wanted - 1) <= RATIO_TOLERANCE;
}

/**
 * Pixels for a tier (default `1K`) and an aspect ratio (default square): the tier's shorter side, the
 * longer one in proportion, rounded to a multiple of 16 (`1K` at `3:2` is 1536x1024).
 */
export function pixelsFor(resolution: ImageResolution | undefined, ratio: string | undefined): Pixels {
  const shorter = SHORTER_SIDE[resolution ?? "1K"];
  const value = (ratio === undefined ? undefined : aspectRatioValue(ratio)) ?? 1;
  const longer = Math.round((shorter * Math.max(value, 1 / value)) / SIDE_STEP) * SIDE_STEP;
  return value >= 1 ? { width: longer, height: shorter } : { width: shorter, height: longer };
}
