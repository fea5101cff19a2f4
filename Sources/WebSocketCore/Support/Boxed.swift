/// An immutable value on the heap, one pointer wide: for a large payload that is read rarely. Never
/// mutated, so sharing it between copies of a connection is the same as copying it.
final class Boxed<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
