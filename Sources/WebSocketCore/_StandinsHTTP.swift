// TEMPORARY stubs until the HTTP helper's files land.
struct HTTPHeadParser: Sendable {
    enum Kind: Sendable { case request, response }
    enum Outcome: Sendable, Equatable { case needMore, request(HTTPRequestHead), response(HTTPResponseHead), failure(HandshakeError) }
    init(kind: Kind, limits: Limits) {}
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, outcome: Outcome) { fatalError() }
}
struct HTTPBodyReader: Sendable {
    init(head: HTTPResponseHead, limit: Int) {}
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, isComplete: Bool) { fatalError() }
    mutating func finish() {}
    var body: [UInt8] { [] }
}
enum ClientHandshake {
    static func makeKey(using generator: inout some RandomNumberGenerator) -> String { fatalError() }
    static func request(options: ClientOptions, key: String) throws(ConnectionError) -> [UInt8] { fatalError() }
    static func validate(response: HTTPResponseHead, key: String, options: ClientOptions) -> Result<HandshakeResult, HandshakeError> { fatalError() }
}
enum ServerHandshake {
    static func validate(request: HTTPRequestHead) -> Result<HandshakeRequest, HandshakeError> { fatalError() }
    static func acceptResponse(for request: HandshakeRequest, subprotocol: String?, extensions: [ExtensionHeader], headers: HTTPHeaders) throws(ConnectionError) -> [UInt8] { fatalError() }
    static func rejectionResponse(status: Int, headers: HTTPHeaders, body: [UInt8]) throws(ConnectionError) -> [UInt8] { fatalError() }
    static func errorResponse(for error: HandshakeError) -> [UInt8] { fatalError() }
}
