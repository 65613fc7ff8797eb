CREATE TABLE `intern_features` (
	`intern_id` text NOT NULL,
	`feature_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`intern_id`, `feature_id`),
	FOREIGN KEY (`intern_id`) REFERENCES `interns`(`id`) ON UPDATE no action ON DELETE cascade
);
