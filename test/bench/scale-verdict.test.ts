// bench-scale's verdicts: a row that meets its ratio but not its slope, when the no-op baseline
// grows as steeply, is Pulumi's own miss and says so; any other miss stays a miss.
// And the median the rows keep of repeated samples.
import { verdict } from "../../bench/scale-report";
import { linear, median, type Point, type Series, within } from "../../bench/scale-series";

const ratio = within(1.1);
const row = (points: Point[]): Series => ({
  family: "stacks", id: "S-x", what: "up", unit: "s", baselineName: "no-op dynamic provider", points,
  goal: "<= 1.1x the no-op", check: (p) => ratio(p) && linear(p), goalMet: ratio,
});

test("a row within its ratio and its slope is ok", () => {
  expect(verdict(row([{ size: 100, value: 10, baseline: 10 }, { size: 1000, value: 100, baseline: 95 }]))).toBe("ok");
});

test("a steep slope that the no-op shares is named as Pulumi's, with the no-op's slope", () => {
  const v = verdict(row([{ size: 100, value: 7, baseline: 7 }, { size: 1000, value: 111, baseline: 136 }]));
  expect(v).toMatch(/^missed by Pulumi/);
  expect(v).toContain("19.4x");
});

test("a slope steeper than the no-op's, or a ratio over its goal, stays MISSED", () => {
  expect(verdict(row([{ size: 100, value: 5, baseline: 7 }, { size: 1000, value: 100, baseline: 100 }]))).toBe("MISSED");
  expect(verdict(row([{ size: 100, value: 10, baseline: 10 }, { size: 1000, value: 200, baseline: 150 }]))).toBe("MISSED");
  expect(verdict(row([{ size: 100, value: 10, baseline: 10 }, { size: 1000, value: 100, baseline: 10 }]))).toBe("MISSED");
});

test("a row without a check has no verdict", () => {
  expect(verdict({ ...row([{ size: 1, value: 1 }]), check: undefined })).toBe("-");
});

test("a median is the middle sample (the lower middle one of an even count), the samples left in their order", () => {
  const xs = [7.2, 4.1, 5.0];
  expect(median(xs)).toBe(5.0);
  expect(median([3, 1, 4, 2])).toBe(2);
  expect(xs).toEqual([7.2, 4.1, 5.0]);
});
