-- What a subscription's write sets off is done by the code that writes it
-- (src/domain/webhooks/subscription-written.ts), where a reader of the domain finds it, no longer by
-- triggers: the subject marked as having subscribed (migrations 005, 010) and the seat engine's work
-- queued (migration 010). Nothing stored changes. mark_seats_changed stays: the statements that
-- record members and lapse them call it.
DROP TRIGGER subscriptions_mark_subject_inserted ON subscriptions;
DROP TRIGGER subscriptions_mark_subject_moved ON subscriptions;
DROP FUNCTION mark_subject_subscribed();
DROP TRIGGER subscriptions_seats_inserted ON subscriptions;
DROP TRIGGER subscriptions_seats_changed ON subscriptions;
DROP FUNCTION seats_follow_subscription();
