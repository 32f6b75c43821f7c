export { accessReviews, mergedRules } from "./access-reviews.ts";
export { selfSubjectReviews } from "./self-subject-review.ts";
export { tokenReviews } from "./token-review.ts";
