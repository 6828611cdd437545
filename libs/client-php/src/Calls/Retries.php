<?php

namespace Licensing\Calls;

use Licensing\LicensingException;

/**
 * Sends a call, and one safe to repeat again after a transient failure, at most twice: after a
 * jittered exponential delay (250 ms, then 500 ms), never before `Retry-After`, and only while
 * the wait and a fair share of time for the next attempt fit in the call's timeout.
 */
final class Retries
{
    public const MAX_RETRIES = 2;
    public const BASE_DELAY = 0.25;

    /** @var Exchange */
    private $exchange;
    /** @var float */
    private $timeout;

    public function __construct(Exchange $exchange, float $timeout)
    {
        $this->exchange = $exchange;
        $this->timeout = $timeout;
    }

    /** @throws LicensingException the last failure when no answer was read */
    public function run(Operation $operation): Outcome
    {
        $deadline = microtime(true) + $this->timeout;
        $reserve = min(1.0, $this->timeout / 4);
        for ($attempt = 0;; $attempt++) {
            $outcome = null;
            try {
                $outcome = $this->exchange->send($operation, $deadline);
                $failure = $outcome->failure;
            } catch (LicensingException $thrown) {
                $failure = $thrown;
            }
            if ($failure === null || !$this->again($operation, $failure, $attempt, $deadline, $reserve)) {
                if ($outcome === null) {
                    throw $failure;
                }
                return $outcome;
            }
        }
    }

    /** Whether to try again after `$failure`, having waited for it when so. */
    private function again(Operation $operation, LicensingException $failure, int $attempt, float $deadline, float $reserve): bool
    {
        $left = $deadline - microtime(true);
        if (!$operation->repeatable || $attempt >= self::MAX_RETRIES || !$failure->isTransient() || $left <= 0) {
            return false;
        }
        $wait = self::BASE_DELAY * (2 ** $attempt) * (0.5 + mt_rand() / mt_getrandmax() / 2);
        if ($failure->getRetryAfter() !== null) {
            $wait = max($wait, (float) $failure->getRetryAfter());
        }
        if ($wait + $reserve > $left) {
            return false;
        }
        usleep((int) ($wait * 1e6));
        return true;
    }
}
