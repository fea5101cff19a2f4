/// One element of a `Sec-WebSocket-Extensions` header (RFC 6455 §9.1): an extension name and its
/// parameters, in order, each with an optional value.
public struct ExtensionHeader: Sendable, Hashable {
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var value: String?
        public init(name: String, value: String? = nil) {
            self.name = name
            self.value = value
        }
    }

    public var name: String
    public var parameters: [Parameter]

    public init(name: String, parameters: [Parameter] = []) {
        self.name = name
        self.parameters = parameters
    }
}
