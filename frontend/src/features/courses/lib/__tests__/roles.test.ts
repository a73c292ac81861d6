import { describe, expect, it } from "vitest";
import type { Course } from "@/types/grading";
import { isCourseStaff, joinCodeInput, roleLabel, staffCourses } from "../roles";

const course = (id: number, role: Course["role"]): Course => ({
  id, name: `c${id}`, slug: `c${id}`, role, join_code: null, max_nodes_per_job: 200, max_concurrent_jobs: 3,
  minutes_per_day_per_student: 120, late_penalty_percent: 10, max_late_days: 3, daemons: [],
  retention_days: 30, retention_max_mb_per_job: 100, disk_use: null,
});

describe("course roles", () => {
  it("counts instructors and TAs as staff, not students", () => {
    expect(isCourseStaff(course(1, "instructor"))).toBe(true);
    expect(isCourseStaff(course(1, "ta"))).toBe(true);
    expect(isCourseStaff(course(1, "student"))).toBe(false);
    expect(isCourseStaff(undefined)).toBe(false);
  });

  it("lists the courses whose gradebook the user may open", () => {
    const courses = [course(1, "student"), course(2, "ta"), course(3, "instructor")];
    expect(staffCourses(courses).map((c) => c.id)).toEqual([2, 3]);
    expect(staffCourses(undefined)).toEqual([]);
  });

  it("labels roles", () => {
    expect(roleLabel("ta")).toBe("TA");
    expect(roleLabel("instructor")).toBe("instructor");
  });

  it("reads a join code typed with spaces, dashes or lower case", () => {
    expect(joinCodeInput(" abcd-efgh ")).toBe("ABCDEFGH");
    expect(joinCodeInput(" - ")).toBe("");
  });
});
