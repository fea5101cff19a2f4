extension Connection {
    /// The bytes of buffer capacity the connection holds for input it has not delivered yet: the
    /// message being assembled, the control frame being read, the HTTP head being parsed and a refusing
    /// response's body. Tests and fuzz targets check it against the configured limits; the input buffer
    /// (what the caller fed and the connection has not parsed yet) and the output buffer are counted
    /// apart, by ``bufferedInputCount`` and ``pendingOutputCount``.
    @_spi(Testing) public var retainedPayloadCapacity: Int {
        messageBuffer.capacity + controlBuffer.capacity + lendScratch.capacity + headParser.retainedByteCount
            + (bodyReader?.body.capacity ?? 0)
    }
}
