<?php

namespace Licensing\Calls;

use Licensing\Http\Response;
use Licensing\LicensingException;
use Licensing\Verification\SignedAnswer;

/**
 * An answer received and read: its `data`, or the server's refusal; and when verified, what its
 * signature covered and when it was made.
 */
final class Outcome
{
    /** @var Response */
    public $response;
    /** @var array<string, mixed>|null the `data` object; null for a refusal */
    public $data;
    /** @var LicensingException|null the server's refusal */
    public $failure;
    /** @var SignedAnswer|null null when answers are not verified */
    public $signed;
    /** @var int|null the signature's `created`, seconds */
    public $created;

    public function __construct(Response $response, ?SignedAnswer $signed, ?int $created)
    {
        $this->response = $response;
        try {
            $this->data = Envelope::data($response);
            $this->failure = null;
        } catch (LicensingException $refusal) {
            $this->data = null;
            $this->failure = $refusal;
        }
        $this->signed = $signed;
        $this->created = $created;
    }

    /**
     * @return array<string, mixed>
     * @throws LicensingException the server's refusal
     */
    public function data(): array
    {
        if ($this->failure !== null || $this->data === null) {
            throw $this->failure !== null ? $this->failure : Envelope::invalid($this->response);
        }
        return $this->data;
    }
}
